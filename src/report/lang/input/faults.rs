//! The words of [`problem::Faults`]: what is wrong in the scenario's `faults` checks.

use super::Lang;
use crate::scenario::problem::Faults;

pub(super) fn words(p: &Faults, _lang: Lang) -> String {
    match *p {}
}
