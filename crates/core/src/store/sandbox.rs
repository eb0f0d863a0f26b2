//! The sandbox a scenario's own SQL runs in, on every connection that runs it (the schema
//! and setup, the steps, a handler's statements, the checks and invariants, narration's
//! reads, and the load-time check), enforced by SQLite at every statement:
//!
//! - an **authorizer**, asked by SQLite for every action of every statement it prepares,
//!   triggers and views included, that allows what the scenario format promises (queries,
//!   writes and schema changes of the database's own tables) and denies the rest: a
//!   transaction statement (transactions are the protocol's `begin` and `commit` steps),
//!   `ATTACH` and `DETACH` (`VACUUM` attaches too), every `PRAGMA` but the read-only schema
//!   ones, temporary and virtual tables, `load_extension` and the functions that read the
//!   connection rather than the database (`changes()`, `last_insert_rowid()`);
//! - **deterministic randomness**: `random()` and `randomblob()` are the tool's, registered
//!   under SQLite's names, drawing from a stream of the run's seed per connection (checks
//!   draw from a stream that starts afresh at each check, so reading them changes nothing);
//!   a column default, a trigger or a view that calls them calls these;
//! - the **virtual clock** ([`super::connect`]) and **bounds**: a budget of
//!   virtual-machine steps per statement, the value size, the database size, and the
//!   memory a statement takes ([`super::memory`]); temporary storage in memory.
//!
//! The tool's own statements (the schema scans of the digest, the transaction steps) run
//! with the sandbox open ([`Mode::Tool`]); every user statement runs inside a [`Guard`].

use super::{connect, memory};
use crate::model::{SandboxRule, Tick};
use crate::sim::{SimRng, Stream};
use rusqlite::functions::FunctionFlags;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::Connection;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

/// The most SQLite virtual-machine steps one user statement may take (an indexed insert
/// takes tens; a scan of a 10,000-row table some hundred thousand).
pub const MAX_VM_STEPS: u32 = 2_000_000;

/// The largest string or blob a user statement may build (`SQLITE_LIMIT_LENGTH`).
pub const MAX_VALUE_BYTES: i32 = 1_000_000;

/// The largest a scenario's own database may grow (`max_page_count`).
pub const MAX_DATABASE_BYTES: i64 = 16 << 20;

/// How many virtual-machine steps pass between two calls of the progress handler.
pub(super) const VM_STEPS_PER_CALL: u32 = 1_000;

/// The pragmas a statement may use (the refusal of any other names them).
const READ_ONLY_PRAGMAS: [&str; 8] = SandboxRule::READ_ONLY_PRAGMAS;

/// Functions that read the connection's state rather than the database: a simulated crash
/// keeps the connection, a real one does not.
const CONNECTION_STATE: [&str; 3] = ["last_insert_rowid", "changes", "total_changes"];

/// Functions no statement may call: they load code or hand SQLite a pointer.
const FORBIDDEN: [&str; 2] = ["load_extension", "fts3_tokenizer"];

/// The date and time functions: they read the (virtual) clock when asked for `'now'`.
pub const CLOCK_FUNCTIONS: [&str; 10] = [
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
    "timediff",
    "current_date",
    "current_time",
    "current_timestamp",
];

/// Who is running statements on the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Mode {
    /// The tool's own statements: nothing is refused.
    Tool = 0,
    /// A user statement of the run (schema, setup, a step, a handler's call).
    User = 1,
    /// A check query, an invariant or a narration read: randomness from a fresh stream.
    Check = 2,
}

/// What the authorizer saw of the statements prepared under a guard.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// The functions called, lower-case: the statement's, its triggers' and its views'.
    pub functions: BTreeSet<String>,
    /// Whether the statement itself (not a trigger) inserts, updates or deletes rows.
    pub writes_rows: bool,
    /// Whether the statement itself creates, drops or alters a schema object.
    pub changes_schema: bool,
}

/// The state the authorizer and the functions share with the store.
struct State {
    mode: AtomicU8,
    /// Progress-handler calls since the running statement started.
    vm_calls: AtomicU32,
    /// Progress-handler calls during the connection's user statements, in all: the run's
    /// SQL cost (checks and narration's reads are not part of it).
    vm_total: AtomicU64,
    /// Why the authorizer last refused an action.
    refusal: Mutex<Option<SandboxRule>>,
    seen: Mutex<Seen>,
    /// The run's stream, which the connection's user statements draw from.
    rng: Mutex<SimRng>,
    /// The stream checks draw from, started afresh at each check.
    check_rng: Mutex<SimRng>,
    /// The seed both streams are drawn from.
    seed: AtomicU64,
}

/// A connection's sandbox (see the module's documentation).
#[derive(Clone)]
pub(super) struct Sandbox {
    state: Arc<State>,
}

impl Sandbox {
    /// Installs the sandbox on `conn`: its limits, functions and authorizer, its
    /// randomness the stream `stream` of `seed`.
    pub(super) fn install(conn: &Connection, seed: u64, stream: Stream) -> Sandbox {
        let state = Arc::new(State {
            mode: AtomicU8::new(Mode::Tool as u8),
            vm_calls: AtomicU32::new(0),
            vm_total: AtomicU64::new(0),
            refusal: Mutex::new(None),
            seen: Mutex::new(Seen::default()),
            rng: Mutex::new(SimRng::new(seed, stream)),
            check_rng: Mutex::new(SimRng::new(seed, Stream::Checks)),
            seed: AtomicU64::new(seed),
        });
        limit(conn);
        register_random(conn, &state);
        authorize(conn, &state);
        let budget = Arc::clone(&state);
        conn.progress_handler(
            VM_STEPS_PER_CALL as i32,
            Some(move || {
                let mode = budget.mode();
                if mode == Mode::User {
                    budget.vm_total.fetch_add(1, Ordering::Relaxed);
                }
                let calls = budget.vm_calls.fetch_add(1, Ordering::Relaxed) + 1;
                mode != Mode::Tool && calls > MAX_VM_STEPS / VM_STEPS_PER_CALL
            }),
        );
        Sandbox { state }
    }

    /// User statements of this connection draw from stream `stream` of `seed` from now on.
    pub(super) fn reseed(&self, seed: u64, stream: Stream) {
        *lock(&self.state.rng) = SimRng::new(seed, stream);
        self.state.seed.store(seed, Ordering::Relaxed);
    }

    /// Puts the run's stream at `position` (a connection in another process continues
    /// the stream where the one before it stood).
    pub(super) fn set_rng_position(&self, position: u128) {
        lock(&self.state.rng).set_position(position);
    }

    /// The SQL cost of the connection's user statements so far, in virtual-machine steps
    /// (to the nearest [`VM_STEPS_PER_CALL`]).
    pub(super) fn vm_steps(&self) -> u64 {
        self.state.vm_total.load(Ordering::Relaxed) * u64::from(VM_STEPS_PER_CALL)
    }

    /// Where the run's stream stands: part of the state that decides the rest of a run.
    pub(super) fn rng_position(&self) -> u128 {
        lock(&self.state.rng).position()
    }

    /// Runs user statements at virtual time `now` until the guard is dropped.
    pub(super) fn user(&self, now: Tick) -> Guard<'_> {
        self.enter(Mode::User, now)
    }

    /// Runs a check at virtual time `now` until the guard is dropped.
    pub(super) fn check(&self, now: Tick) -> Guard<'_> {
        let seed = self.state.seed.load(Ordering::Relaxed);
        *lock(&self.state.check_rng) = SimRng::new(seed, Stream::Checks);
        self.enter(Mode::Check, now)
    }

    fn enter(&self, mode: Mode, now: Tick) -> Guard<'_> {
        let state = &self.state;
        assert_eq!(state.mode(), Mode::Tool, "user statements do not nest");
        state.mode.store(mode as u8, Ordering::Relaxed);
        state.vm_calls.store(0, Ordering::Relaxed);
        *lock(&state.refusal) = None;
        *lock(&state.seen) = Seen::default();
        connect::set_now(now);
        connect::take_temp_file_asked();
        Guard {
            sandbox: self,
            memory: memory::StatementMemory::start(),
        }
    }
}

/// User statements run while it lives; dropping it opens the sandbox to the tool again.
pub(super) struct Guard<'s> {
    sandbox: &'s Sandbox,
    memory: memory::StatementMemory,
}

impl Guard<'_> {
    /// The statement starts now: its step and memory budgets start again.
    pub(super) fn next_statement(&mut self) {
        self.sandbox.state.vm_calls.store(0, Ordering::Relaxed);
        self.memory.restart();
    }

    /// Why the running statement failed, when the sandbox made it fail: an action the
    /// authorizer refused, the memory or step budget, or a temporary file.
    pub(super) fn why_failed(&self) -> Option<SandboxRule> {
        let state = &self.sandbox.state;
        if let Some(why) = lock(&state.refusal).clone() {
            return Some(why);
        }
        if self.memory.refused() {
            return Some(SandboxRule::Memory {
                limit_mib: (memory::STATEMENT_MEMORY_BYTES >> 20) as u64,
            });
        }
        if connect::take_temp_file_asked() {
            return Some(SandboxRule::TemporaryFile);
        }
        None
    }

    /// What the authorizer saw of the statements prepared under this guard.
    pub(super) fn seen(&self) -> Seen {
        lock(&self.sandbox.state.seen).clone()
    }

    /// What the authorizer saw since the last call, forgotten.
    pub(super) fn take_seen(&mut self) -> Seen {
        std::mem::take(&mut *lock(&self.sandbox.state.seen))
    }
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        let state = &self.sandbox.state;
        state.mode.store(Mode::Tool as u8, Ordering::Relaxed);
    }
}

impl State {
    fn mode(&self) -> Mode {
        match self.mode.load(Ordering::Relaxed) {
            1 => Mode::User,
            2 => Mode::Check,
            _ => Mode::Tool,
        }
    }
}

/// A lock nobody can poison for long: the data is a counter or a stream.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Caps the values a user statement may build on `conn` and the database's size (a
/// statement that would grow it past [`MAX_DATABASE_BYTES`] fails, "database or disk is
/// full"); its temporary storage is in memory (see [`connect`]), inside the statement's
/// memory budget.
fn limit(conn: &Connection) {
    // Fails only for a limit SQLite does not know.
    let _ = conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES);
    let page_bytes: i64 = conn
        .pragma_query_value(None, "page_size", |r| r.get(0))
        .unwrap_or(4096);
    let pages = MAX_DATABASE_BYTES / page_bytes.max(512);
    conn.pragma_update(None, "max_page_count", pages)
        .expect("max_page_count is a pragma of every connection");
}

/// `random()` and `randomblob(N)`, drawn from the connection's stream (a check's, in a
/// check), registered under SQLite's own names so that defaults, triggers and views call
/// them too.
fn register_random(conn: &Connection, state: &Arc<State>) {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_INNOCUOUS;
    let s = Arc::clone(state);
    conn.create_scalar_function("random", 0, flags, move |_| {
        Ok(s.draw(|rng| rng.next_u64() as i64))
    })
    .expect("random() registers");
    let s = Arc::clone(state);
    conn.create_scalar_function("randomblob", 1, flags, move |ctx| {
        // SQLite's own rule: fewer than 1 byte asked for gives 1.
        let n = ctx
            .get::<i64>(0)
            .unwrap_or(1)
            .clamp(1, i64::from(MAX_VALUE_BYTES));
        Ok(s.draw(|rng| {
            let mut bytes = Vec::with_capacity(n as usize);
            while bytes.len() < n as usize {
                bytes.extend_from_slice(&rng.next_u64().to_le_bytes());
            }
            bytes.truncate(n as usize);
            bytes
        }))
    })
    .expect("randomblob() registers");
}

impl State {
    /// A draw from the stream of the running statement: the run's, or a check's.
    fn draw<T>(&self, f: impl FnOnce(&mut SimRng) -> T) -> T {
        match self.mode() {
            Mode::Check => f(&mut lock(&self.check_rng)),
            Mode::User | Mode::Tool => f(&mut lock(&self.rng)),
        }
    }
}

/// Installs the authorizer: every action of a user statement is allowed, or refused with
/// the reason kept for the statement's error; functions and top-level writes are recorded.
fn authorize(conn: &Connection, state: &Arc<State>) {
    let s = Arc::clone(state);
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        if s.mode() == Mode::Tool {
            return Authorization::Allow;
        }
        s.record(&ctx);
        match refusal(&ctx.action) {
            Some(why) => {
                *lock(&s.refusal) = Some(why);
                Authorization::Deny
            }
            None => Authorization::Allow,
        }
    }));
}

impl State {
    fn record(&self, ctx: &AuthContext<'_>) {
        let mut seen = lock(&self.seen);
        let top = ctx.accessor.is_none();
        match ctx.action {
            AuthAction::Function { function_name } => {
                seen.functions.insert(function_name.to_ascii_lowercase());
            }
            AuthAction::Insert { .. } | AuthAction::Update { .. } | AuthAction::Delete { .. }
                if top =>
            {
                seen.writes_rows = true
            }
            AuthAction::CreateIndex { .. }
            | AuthAction::CreateTable { .. }
            | AuthAction::CreateTrigger { .. }
            | AuthAction::CreateView { .. }
            | AuthAction::DropIndex { .. }
            | AuthAction::DropTable { .. }
            | AuthAction::DropTrigger { .. }
            | AuthAction::DropView { .. }
            | AuthAction::AlterTable { .. }
                if top =>
            {
                seen.changes_schema = true
            }
            _ => {}
        }
    }
}

/// Why a user statement may not take `action`, or `None` when it may.
fn refusal(action: &AuthAction<'_>) -> Option<SandboxRule> {
    let why = match *action {
        AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => SandboxRule::Transaction,
        AuthAction::Attach { .. } | AuthAction::Detach { .. } => SandboxRule::Attach,
        AuthAction::Pragma { pragma_name, .. }
            if !READ_ONLY_PRAGMAS.contains(&pragma_name.to_ascii_lowercase().as_str()) =>
        {
            SandboxRule::Pragma {
                name: pragma_name.to_string(),
            }
        }
        AuthAction::CreateTempIndex { .. }
        | AuthAction::CreateTempTable { .. }
        | AuthAction::CreateTempTrigger { .. }
        | AuthAction::CreateTempView { .. }
        | AuthAction::CreateVtable { .. }
        | AuthAction::DropVtable { .. } => SandboxRule::Temporary,
        AuthAction::Function { function_name } => return refused_function(function_name),
        _ => return None,
    };
    Some(why)
}

/// Why no statement may call function `name`, or `None` when it may.
pub(super) fn refused_function(name: &str) -> Option<SandboxRule> {
    let f = name.to_ascii_lowercase();
    let function = || name.to_string();
    if CONNECTION_STATE.contains(&f.as_str()) {
        Some(SandboxRule::ConnectionState {
            function: function(),
        })
    } else if FORBIDDEN.contains(&f.as_str()) {
        Some(SandboxRule::LoadsCode {
            function: function(),
        })
    } else {
        None
    }
}
