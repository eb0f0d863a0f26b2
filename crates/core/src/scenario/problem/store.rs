//! What can be wrong in the scenario's `store` checks (`scenario::validate::store`): the
//! inbox's settings, its retention, out-of-order completions, and the engine.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Store {
    /// An inbox setting for protocol `protocol`, which has no inbox; `steps` are its steps,
    /// as `receive → begin → …`.
    NoInbox { protocol: String, steps: String },
    /// A cleanup setting without `store.inbox_ttl_ticks`.
    CleanupWithoutTtl,
    /// An out-of-order setting without the lifecycle workload.
    NotLifecycle,
    /// An out-of-order setting on a log keyed so that a transfer's events arrive in order.
    KeyedLogInOrder,
    /// An isolation level on SQLite.
    IsolationOnSqlite,
    /// PostgreSQL could not be reached: the store's own text of why not.
    PostgresUnreachable { reason: String },
}
