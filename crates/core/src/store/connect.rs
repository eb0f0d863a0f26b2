//! Opening a SQLite connection, and the process-wide set-up every connection relies on.
//! Every connection the tool opens comes from here, so that each one:
//!
//! - reads the **virtual clock**: it is opened on the tool's VFS (`delivery-sim`), SQLite's
//!   own file layer with two changes. Its clock is the run's virtual time (the date and
//!   time functions' `'now'`, `CURRENT_TIMESTAMP` and a column default that calls them all
//!   read it there, SQLite's one seam for the time), and it opens no temporary file;
//! - takes **local time as UTC**, whatever the machine's time zone (`'localtime'`);
//! - runs under the **counting allocator** ([`super::memory`]).
//!
//! Virtual time is [`EPOCH_UNIX_SECONDS`] plus one second per tick.

use super::memory;
use crate::model::Tick;
use rusqlite::{ffi, Connection, OpenFlags};
use std::cell::Cell;
use std::ffi::{c_int, c_void, CString};
use std::path::Path;
use std::sync::OnceLock;

/// The VFS every connection is opened on.
const VFS_NAME: &str = "delivery-sim";

/// The instant tick 0 stands for: 2026-01-01 00:00:00 UTC, in seconds since 1970.
pub const EPOCH_UNIX_SECONDS: i64 = 1_767_225_600;

/// Milliseconds from the Julian epoch (the unit of SQLite's clock) to 1970-01-01.
const UNIX_EPOCH_JULIAN_MS: i64 = 210_866_760_000_000;

thread_local! {
    /// The virtual time the clock reads on this thread (a run is on one thread).
    static NOW: Cell<Tick> = const { Cell::new(0) };
    /// Whether SQLite asked this thread's VFS for a temporary file since the flag was
    /// last taken.
    static TEMP_FILE_ASKED: Cell<bool> = const { Cell::new(false) };
}

/// What the process-wide set-up achieved.
#[derive(Clone, Copy, Debug)]
struct Setup {
    /// Whether the counting allocator is SQLite's (it is unless some other code opened a
    /// connection before this module did).
    counted: bool,
}

static SETUP: OnceLock<Setup> = OnceLock::new();

/// The set-up, done once, before the first connection.
fn setup() -> Setup {
    *SETUP.get_or_init(|| {
        let counted = memory::install();
        // SAFETY: configuration calls before any connection of this module, with the
        // argument types SQLite documents; the VFS and the name live for the process.
        unsafe {
            // Statement journals stay in memory (they are bounded by the database's size).
            ffi::sqlite3_config(ffi::SQLITE_CONFIG_STMTJRNL_SPILL, -1 as c_int);
            ffi::sqlite3_test_control(
                ffi::SQLITE_TESTCTRL_LOCALTIME_FAULT,
                2 as c_int,
                utc_as_local as unsafe extern "C" fn(*const c_void, *mut c_void) -> c_int,
            );
            register_vfs();
        }
        Setup { counted }
    })
}

/// Whether every user statement's memory is bounded (see [`super::memory`]).
pub fn memory_is_bounded() -> bool {
    setup().counted
}

/// Registers the tool's VFS: a copy of the default one with its own clock and no
/// temporary files.
unsafe fn register_vfs() {
    let root = ffi::sqlite3_vfs_find(std::ptr::null());
    assert!(!root.is_null(), "SQLite has a default VFS");
    ROOT.set(Root(root)).ok();
    let name = CString::new(VFS_NAME)
        .expect("no NUL in the name")
        .into_raw();
    let vfs = Box::leak(Box::new(ffi::sqlite3_vfs {
        pNext: std::ptr::null_mut(),
        zName: name,
        xOpen: Some(open_no_temporary),
        xCurrentTime: Some(current_time),
        xCurrentTimeInt64: Some(current_time_int64),
        ..*root
    }));
    let rc = ffi::sqlite3_vfs_register(vfs, 0);
    assert_eq!(rc, ffi::SQLITE_OK, "the VFS registers");
}

/// The default VFS the tool's delegates to.
struct Root(*mut ffi::sqlite3_vfs);

// SAFETY: SQLite's default VFS is a static structure, valid for the process and used from
// every thread by SQLite itself.
unsafe impl Sync for Root {}
unsafe impl Send for Root {}

static ROOT: OnceLock<Root> = OnceLock::new();

/// Opens a file on the default VFS, but no temporary file (SQLite asks for one with no
/// name): with temporary storage in memory none is needed, and a statement must not write
/// a file, so the statement that would need one fails instead.
unsafe extern "C" fn open_no_temporary(
    _vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    if name.is_null() {
        TEMP_FILE_ASKED.with(|t| t.set(true));
        return ffi::SQLITE_CANTOPEN;
    }
    let root = ROOT.get().expect("registered after the root is known").0;
    ((*root).xOpen.expect("a VFS opens files"))(root, name, file, flags, out_flags)
}

unsafe extern "C" fn current_time_int64(
    _vfs: *mut ffi::sqlite3_vfs,
    out: *mut ffi::sqlite3_int64,
) -> c_int {
    *out = virtual_julian_ms(NOW.with(Cell::get));
    ffi::SQLITE_OK
}

unsafe extern "C" fn current_time(_vfs: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    *out = virtual_julian_ms(NOW.with(Cell::get)) as f64 / 86_400_000.0;
    ffi::SQLITE_OK
}

/// Tick `now` as SQLite's clock reads time: milliseconds since the Julian epoch.
fn virtual_julian_ms(now: Tick) -> i64 {
    let seconds = EPOCH_UNIX_SECONDS.saturating_add(i64::try_from(now).unwrap_or(i64::MAX));
    UNIX_EPOCH_JULIAN_MS.saturating_add(seconds.saturating_mul(1_000))
}

/// SQLite's `localtime` replacement: the time in UTC, so that `'localtime'` and `'utc'`
/// give the same answer on every machine.
unsafe extern "C" fn utc_as_local(t: *const c_void, tm: *mut c_void) -> c_int {
    #[cfg(unix)]
    {
        let t = t as *const libc::time_t;
        let tm = tm as *mut libc::tm;
        c_int::from(libc::gmtime_r(t, tm).is_null())
    }
    #[cfg(not(unix))]
    {
        let _ = (t, tm);
        1 // "local time unavailable": the statement fails the same way on every run.
    }
}

/// Sets the virtual time this thread's connections read.
pub(super) fn set_now(now: Tick) {
    NOW.with(|n| n.set(now));
}

/// Whether SQLite asked for a temporary file since the last call.
pub(super) fn take_temp_file_asked() -> bool {
    TEMP_FILE_ASKED.with(|t| t.replace(false))
}

/// A new in-memory connection on the tool's VFS.
pub fn open_in_memory() -> rusqlite::Result<Connection> {
    setup();
    in_memory_temporaries(Connection::open_with_flags_and_vfs(
        ":memory:",
        OpenFlags::default(),
        VFS_NAME,
    )?)
}

/// A connection to the database file at `path` on the tool's VFS (created if missing).
pub fn open_file(path: &Path) -> rusqlite::Result<Connection> {
    setup();
    in_memory_temporaries(Connection::open_with_flags_and_vfs(
        path,
        OpenFlags::default(),
        VFS_NAME,
    )?)
}

/// Keeps `conn`'s temporary storage (sorts, temporary b-trees, statement journals) in
/// memory: the VFS opens no temporary file.
fn in_memory_temporaries(conn: Connection) -> rusqlite::Result<Connection> {
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    Ok(conn)
}
