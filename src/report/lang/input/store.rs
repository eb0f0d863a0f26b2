//! The words of [`problem::Store`]: what is wrong in the scenario's `store` checks.

use super::Lang;
use crate::scenario::problem::Store;

pub(super) fn words(p: &Store, _lang: Lang) -> String {
    match *p {}
}
