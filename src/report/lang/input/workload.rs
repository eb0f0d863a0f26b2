//! The words of [`problem::Workload`]: what is wrong in the scenario's `workload` checks.

use super::Lang;
use crate::scenario::problem::Workload;

pub(super) fn words(p: &Workload, _lang: Lang) -> String {
    match *p {}
}
