//! The memory one user statement may take: SQLite's allocator, wrapped to count what each
//! thread holds, and to refuse an allocation that would take a statement past
//! [`STATEMENT_MEMORY_BYTES`] while it runs.
//!
//! SQLite keeps temporary storage (sorts, `DISTINCT`, recursive CTE queues, window
//! partitions, statement journals) in memory here (`temp_store = MEMORY`, so no statement
//! writes a temporary file), and a statement under the budget of virtual-machine steps can
//! still grow that storage by a megabyte a row. Counting bytes is the bound that holds
//! whatever the statement does: past it SQLite answers `SQLITE_NOMEM`, which the step
//! reports as its failure, and nothing else of the process is touched.
//!
//! The count is per thread (a run is on one thread) and measured from the statement's
//! start, so what other threads, or earlier runs on this thread, hold does not change it:
//! a statement's own allocations depend on its connection's history, which is the run's.
//! The allocator is SQLite's own underneath; this wrapper only counts.

use rusqlite::ffi;
use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

/// The most memory one user statement may allocate, net of what it frees, while it runs:
/// its temporary storage, the database pages it adds, its values.
pub const STATEMENT_MEMORY_BYTES: i64 = 32 << 20;

thread_local! {
    /// The bytes SQLite holds that this thread allocated (net of what it freed).
    static HELD: Cell<i64> = const { Cell::new(0) };
    /// While a user statement runs: the most `HELD` may reach.
    static CEILING: Cell<Option<i64>> = const { Cell::new(None) };
    /// Whether an allocation was refused since the statement started.
    static REFUSED: Cell<bool> = const { Cell::new(false) };
}

/// SQLite's own allocator, which the counting one calls.
struct Methods(ffi::sqlite3_mem_methods);

// SAFETY: the methods are C function pointers and a pointer SQLite's default allocator
// never reads (`pAppData` is null for it); they are written once, before any use.
unsafe impl Sync for Methods {}
unsafe impl Send for Methods {}

static DEFAULT: OnceLock<Methods> = OnceLock::new();

fn default_methods() -> &'static ffi::sqlite3_mem_methods {
    &DEFAULT
        .get()
        .expect("the counting allocator is installed only after the default is read")
        .0
}

/// Installs the counting allocator. Must run before SQLite is initialised (the first
/// connection); returns whether SQLite took it.
pub(super) fn install() -> bool {
    // SAFETY: `sqlite3_config` is called before any connection exists (the caller's
    // `Once` runs before every open), with the argument types its options document.
    unsafe {
        let mut methods: ffi::sqlite3_mem_methods = std::mem::zeroed();
        if ffi::sqlite3_config(ffi::SQLITE_CONFIG_GETMALLOC, &mut methods as *mut _)
            != ffi::SQLITE_OK
        {
            return false;
        }
        let _ = DEFAULT.set(Methods(methods));
        let counting = Box::leak(Box::new(ffi::sqlite3_mem_methods {
            xMalloc: Some(counted_malloc),
            xFree: Some(counted_free),
            xRealloc: Some(counted_realloc),
            ..methods
        }));
        ffi::sqlite3_config(ffi::SQLITE_CONFIG_MALLOC, counting as *mut _) == ffi::SQLITE_OK
    }
}

/// Whether `extra` more bytes fit under the running statement's ceiling (always, outside
/// a statement); a refusal is remembered for the statement's error.
fn fits(extra: i64) -> bool {
    let Some(ceiling) = CEILING.with(Cell::get) else {
        return true;
    };
    let fits = HELD.with(Cell::get) + extra <= ceiling;
    if !fits {
        REFUSED.with(|r| r.set(true));
    }
    fits
}

fn held_add(bytes: i64) {
    HELD.with(|h| h.set(h.get() + bytes));
}

unsafe extern "C" fn counted_malloc(n: c_int) -> *mut c_void {
    if !fits(i64::from(n)) {
        return std::ptr::null_mut();
    }
    let m = default_methods();
    let p = (m.xMalloc.expect("SQLite's malloc"))(n);
    if !p.is_null() {
        held_add(i64::from((m.xSize.expect("SQLite's size"))(p)));
    }
    p
}

unsafe extern "C" fn counted_free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    let m = default_methods();
    held_add(-i64::from((m.xSize.expect("SQLite's size"))(p)));
    (m.xFree.expect("SQLite's free"))(p)
}

unsafe extern "C" fn counted_realloc(p: *mut c_void, n: c_int) -> *mut c_void {
    let m = default_methods();
    let before = i64::from((m.xSize.expect("SQLite's size"))(p));
    if i64::from(n) > before && !fits(i64::from(n) - before) {
        return std::ptr::null_mut();
    }
    let q = (m.xRealloc.expect("SQLite's realloc"))(p, n);
    if !q.is_null() {
        held_add(i64::from((m.xSize.expect("SQLite's size"))(q)) - before);
    }
    q
}

/// A user statement's memory budget, from now until it is dropped.
pub(super) struct StatementMemory {
    outer: Option<i64>,
}

impl StatementMemory {
    /// Starts counting: the statement may hold [`STATEMENT_MEMORY_BYTES`] more than the
    /// thread holds now.
    pub(super) fn start() -> StatementMemory {
        let ceiling = HELD.with(Cell::get) + STATEMENT_MEMORY_BYTES;
        REFUSED.with(|r| r.set(false));
        StatementMemory {
            outer: CEILING.with(|c| c.replace(Some(ceiling))),
        }
    }

    /// The next statement starts: it may hold [`STATEMENT_MEMORY_BYTES`] more than the
    /// thread holds now.
    pub(super) fn restart(&mut self) {
        let ceiling = HELD.with(Cell::get) + STATEMENT_MEMORY_BYTES;
        REFUSED.with(|r| r.set(false));
        CEILING.with(|c| c.set(Some(ceiling)));
    }

    /// Whether an allocation was refused for the budget (then SQLite answered "out of
    /// memory" because of it).
    pub(super) fn refused(&self) -> bool {
        REFUSED.with(Cell::get)
    }
}

impl Drop for StatementMemory {
    fn drop(&mut self) {
        CEILING.with(|c| c.set(self.outer));
    }
}
