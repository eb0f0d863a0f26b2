//! The words of [`problem::Databases`]: what is wrong in the scenario's `databases` checks.

use super::Lang;
use crate::scenario::problem::Databases;

pub(super) fn words(p: &Databases, _lang: Lang) -> String {
    match *p {}
}
