//! The words of [`problem::Policy`]: what is wrong in the scenario's `policy` checks.

use super::Lang;
use crate::scenario::problem::Policy;

pub(super) fn words(p: &Policy, _lang: Lang) -> String {
    match *p {}
}
