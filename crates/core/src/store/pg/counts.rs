//! What a thread's runs asked of the PostgreSQL server, counted for `bench` (where the
//! time goes: statements, blocked checks, connections, parked statements).

thread_local! {
    /// What this thread's runs asked of the server.
    static COUNTS: std::cell::Cell<Counts> = const { std::cell::Cell::new(Counts::ZERO) };
}

/// What a thread's runs asked of the server: statements sent, `is_blocked` questions,
/// backends started, and idle connections reused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub statements: u64,
    pub blocked_checks: u64,
    pub connections: u64,
    pub reused: u64,
    /// Waiting statements parked so that they are released one at a time.
    pub parked: u64,
}

impl Counts {
    const ZERO: Counts = Counts {
        statements: 0,
        blocked_checks: 0,
        connections: 0,
        reused: 0,
        parked: 0,
    };
}

/// This thread's counts so far.
pub fn counts() -> Counts {
    COUNTS.with(std::cell::Cell::get)
}

pub(crate) fn count(f: impl FnOnce(&mut Counts)) {
    COUNTS.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}
