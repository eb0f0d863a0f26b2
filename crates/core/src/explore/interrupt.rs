//! A request to stop a long search early (Ctrl-C during `sweep` or `explore`). The command
//! line sets it from its signal handler; `explore` and `sweep` read it before each run they
//! start, finish the runs in progress, and report only a prefix of the work that was really
//! done (a prefix of the schedules in schedule order, a prefix of the seeds), so what they
//! print is exactly what an uninterrupted search would have printed for that prefix.
//!
//! Nothing inside a run reads it: a run is still a pure function of its scenario and seed,
//! and a search that is not interrupted never sees it set.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks every search in this process to stop before its next run.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether a stop was requested.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
