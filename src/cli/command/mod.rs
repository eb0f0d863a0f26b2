//! One file per command: what each does with its parsed arguments, and the checks it makes
//! (`run DIR`, in `cli::folder`, calls the same checks for each file).

mod explain;
mod explore;
mod html;
mod ladder;
mod matrix;
mod replay;
mod retention;
mod run;
mod sweep;

pub(in crate::cli) use explain::*;
pub(in crate::cli) use explore::*;
pub(in crate::cli) use html::*;
pub(in crate::cli) use ladder::*;
pub(in crate::cli) use matrix::*;
pub(in crate::cli) use replay::*;
pub(in crate::cli) use retention::*;
pub(in crate::cli) use run::*;
pub(in crate::cli) use sweep::*;
