//! The words of [`problem::Broker`]: what is wrong in the scenario's `broker` checks.

use super::Lang;
use crate::scenario::problem::Broker;

pub(super) fn words(p: &Broker, _lang: Lang) -> String {
    match *p {}
}
