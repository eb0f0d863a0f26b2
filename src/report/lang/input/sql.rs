//! The words of [`problem::Sql`]: what is wrong in the scenario's `sql` checks.

use super::Lang;
use crate::scenario::problem::Sql;

pub(super) fn words(p: &Sql, _lang: Lang) -> String {
    match *p {}
}
