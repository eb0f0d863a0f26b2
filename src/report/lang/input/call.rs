//! The words of [`problem::Call`]: what is wrong in the scenario's `call` checks.

use super::Lang;
use crate::scenario::problem::Call;

pub(super) fn words(p: &Call, _lang: Lang) -> String {
    match *p {}
}
