//! What can be wrong in the settings the checker weighs against the whole scenario
//! (`scenario::validate`'s own checks): the broker transaction, the email key, the
//! exploration depths an `expect` block pins.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    /// `broker.transactional` with the log broker.
    TransactionalLog,
    /// `broker.transactional` in a protocol with no `produce_output`.
    TransactionalWithoutOutput { protocol: String, steps: String },
    /// `email.idempotency_key` in a protocol that sends no email.
    EmailKeyWithoutEmail { protocol: String, steps: String },
    /// Two `expect.explore` entries pin the same depth.
    DepthPinnedTwice { depth: usize, first: usize },
}
