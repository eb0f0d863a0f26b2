//! The words of [`problem::Flow`]: what is wrong in the scenario's `flow` checks.

use super::Lang;
use crate::scenario::problem::Flow;

pub(super) fn words(p: &Flow, _lang: Lang) -> String {
    match *p {}
}
