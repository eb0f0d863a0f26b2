//! The trace's own wording: each kind's outcome in English, as `run --trace` prints it.

use super::*;
use std::fmt;

impl fmt::Display for Publication {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Publication::First => f.write_str("published"),
            Publication::Again => f.write_str("republished (same event_id)"),
            Publication::Altered {
                amount_minor,
                original_minor,
            } => write!(
                f,
                "republished with the same event_id and ANOTHER payload (amount_minor \
                 {amount_minor} instead of {original_minor}): a producer bug"
            ),
            Publication::Minted { intent } => write!(
                f,
                "published with a new event_id for e{intent}'s transfer: a different event to \
                 any inbox"
            ),
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Steps(n) => write!(f, "step limit {n}"),
            Limit::Ticks(n) => write!(f, "tick limit {n}"),
            Limit::TraceEntries(n) => write!(f, "trace limit {n} entries"),
            Limit::SqlVmSteps(n) => write!(f, "SQL limit of {n} virtual-machine steps"),
        }
    }
}

/// The English outcome of a trace line: what came of the action.
impl fmt::Display for TraceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceKind::*;
        match self {
            Received => f.write_str("received"),
            NothingReady => f.write_str("nothing ready: waiting"),
            Db { outcome, .. } | RolledBack { outcome } | Alert { outcome } => {
                f.write_str(outcome.describe())
            }
            StepFailed { .. } => f.write_str("failed (injected): nothing done"),
            SqlFailed { failure, .. } => write!(f, "failed: {}", failure.english()),
            HandlerFailed { error } => write!(f, "returned an error: {error}"),
            Retrying { .. } | DeadLetterSent { .. } | GaveUp { .. } => self.fmt_policy(f),
            Skipped { .. } | Caught { .. } | Kept { .. } | Jumped { .. } | LoopLimit { .. } => {
                self.fmt_flow(f)
            }
            InvalidPayload => {
                f.write_str("refused: the payload is invalid (workload.invalid), nothing applied")
            }
            CommitTimeout { .. } | Lookup { .. } => self.fmt_commit_timeout(f),
            AckLost => f.write_str(
                "ack lost on the way: the consumer believes it acked, the broker never heard it",
            ),
            Acked { outcome, offsets } => f.write_str(match outcome {
                AckOutcome::Accepted if *offsets => {
                    "processed: counts towards the next offset commit"
                }
                AckOutcome::Accepted => "acked: the broker forgets the message",
                AckOutcome::AlreadyAcked => "already acked",
                AckOutcome::Stale => "stale ack ignored: the message was delivered again",
                AckOutcome::StaleAccepted => {
                    "stale ack accepted: the message is acked, whoever else holds it"
                }
            }),
            OutputProduced { staged: true } => {
                f.write_str("TransferApplied staged in the broker transaction (visible at the ack)")
            }
            OutputProduced { staged: false } => {
                f.write_str("TransferApplied published to the output topic (visible at once)")
            }
            ExternalEffectSent => f.write_str("sent (outside the database: never rolled back)"),
            Called { service } => {
                write!(
                    f,
                    "`{service}` called (outside the database: never rolled back)"
                )
            }
            Nacked => f.write_str("rejected: the broker will redeliver"),
            Sleep { ticks } => write!(
                f,
                "a TransferCompleted: sleeps {ticks} ticks to give its TransferCreated time, \
                 holding the delivery"
            ),
            Stall { boundary, ticks } => write!(
                f,
                "stalls at {boundary} for {ticks} ticks, holding its delivery and transaction"
            ),
            ConsumerRestart => f.write_str("back to receive"),
            Crash { boundary, cause } => match cause {
                CrashCause::Planned(i) => write!(f, "crash at {boundary} (faults.crash[{i}])"),
                CrashCause::Random => write!(f, "crash at {boundary} (random)"),
            },
            CrashRollback => f.write_str("open transaction rolled back by the database"),
            StopRollback => f.write_str("open transaction rolled back"),
            _ => self.fmt_others(f),
        }
    }
}

impl TraceKind {
    /// The English outcome of a protocol's branches, loops and kept values.
    fn fmt_flow(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceKind::*;
        match self {
            Skipped { .. } => f.write_str("skipped: its `when` does not hold"),
            Caught { to, rollback, .. } => match rollback {
                true => write!(f, "failure caught: rolls back, goes on at `{to}`"),
                false => write!(
                    f,
                    "failure caught: goes on at `{to}` in the same transaction"
                ),
            },
            Kept { into, row, .. } => match row {
                Some(row) => write!(f, "keeps `{into}`: {row}"),
                None => write!(f, "keeps `{into}`: no row (every column NULL)"),
            },
            Jumped { to, pass, .. } => write!(f, "goto `{to}` (pass {pass})"),
            LoopLimit { passes, .. } => write!(
                f,
                "fails: one more jump back would pass the {passes} passes a delivery may make"
            ),
            _ => unreachable!("not a flow entry"),
        }
    }

    /// The English outcome of an error policy's entries.
    fn fmt_policy(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceKind::*;
        match self {
            Retrying {
                attempt,
                backoff_ticks: 0,
            } => write!(f, "error policy: retries at once (attempt {attempt})"),
            Retrying {
                attempt,
                backoff_ticks,
            } => write!(
                f,
                "error policy: retries after {backoff_ticks} ticks (attempt {attempt}), \
                 holding the delivery"
            ),
            DeadLetterSent { outcome } => match outcome {
                AckOutcome::Accepted | AckOutcome::StaleAccepted => {
                    f.write_str("moved to the dead-letter queue")
                }
                _ => f.write_str(
                    "dead-letter refused: this delivery is no longer the broker's latest",
                ),
            },
            GaveUp { then, step, nth } => {
                let step = occurrence_name(*step, *nth);
                match then {
                    GiveUp::Redeliver => write!(
                        f,
                        "error policy gives up after `{step}` failed: rejects for redelivery"
                    ),
                    GiveUp::Ack => write!(
                        f,
                        "error policy gives up after `{step}` failed: acked although \
                         not processed (the event is skipped)"
                    ),
                    GiveUp::DeadLetter => write!(
                        f,
                        "error policy gives up after `{step}` failed: dead-lettered"
                    ),
                }
            }
            _ => unreachable!("not an error policy's entry"),
        }
    }

    /// The English outcome of the broker's entries.
    fn fmt_others(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceKind::*;
        match self {
            Delivered { consumer } => write!(f, "in flight to consumer{consumer}"),
            BrokerDuplicate => f.write_str("the broker will deliver it again (its own duplicate)"),
            Visible => f.write_str("ready after its delivery delay"),
            Requeued => f.write_str("ready for redelivery"),
            LeaseExpired => f.write_str(
                "unacked past its lease: ready again while its consumer may still be working \
                 on it",
            ),
            LateReplay => f.write_str(
                "acked, and ready again at the end of the broker's replay window \
                 (broker.late_redelivery_ticks)",
            ),
            DeadLettered { deliveries, parked } => write!(
                f,
                "dead-lettered after {deliveries} deliveries: {}",
                if *parked {
                    "parked until the dead-letter queue is replayed"
                } else {
                    "never delivered again"
                }
            ),
            DeadLettersEmpty => f.write_str("the dead-letter queue is empty: nothing to replay"),
            DeadLetterReplayed => f.write_str(
                "back from the dead-letter queue, same event_id: ready again, its deliveries \
                 counted afresh",
            ),
            OutputsSettled { committed: true } => {
                f.write_str("the ack commits the broker transaction: its outputs become visible")
            }
            OutputsSettled { committed: false } => {
                f.write_str("the ack is refused: the broker transaction aborts with its outputs")
            }
            OutputsDiscarded => {
                f.write_str("the broker transaction aborts: its staged outputs are discarded")
            }
            ConnectionLost {
                consumer,
                rebalance: true,
            } => write!(
                f,
                "consumer{consumer} left the group: its partitions are rebalanced and resume \
                 from their committed offsets"
            ),
            ConnectionLost { consumer, .. } => {
                write!(
                    f,
                    "consumer{consumer}'s unacked deliveries will be redelivered"
                )
            }
            _ => self.fmt_upstream(f),
        }
    }

    /// The English outcome of the producer's, the relays', the retention job's and the
    /// simulator's entries.
    fn fmt_upstream(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceKind::*;
        match self {
            Published { .. }
            | PublishTimedOut { .. }
            | TransferInserted { .. }
            | TransferKnown
            | TransferCommitted
            | ProducerRestart { .. } => self.fmt_producer(f),
            Busy { step } => f.write_str(match step {
                Step::CommitTransfer => "SQLITE_BUSY on COMMIT; wait",
                Step::MarkSent | Step::MarkEmailSent => "SQLITE_BUSY; wait",
                _ => "SQLITE_BUSY: another connection holds the write lock; wait",
            }),
            OutboxEmpty => f.write_str("outbox empty: waiting"),
            RelayPublished { row, event, how } => write!(f, "outbox row {row}: e{event} {how}"),
            EmailSent {
                row,
                idempotency_key,
            } => write!(
                f,
                "email row {row} sent to the mail service, {}",
                if *idempotency_key {
                    "with the event_id as idempotency key"
                } else {
                    "without an idempotency key"
                }
            ),
            MarkedSent { row, .. } => write!(f, "row {row} marked sent"),
            RelayRestart => f.write_str("back; reads the outbox from its oldest unsent row"),
            InboxExpired {
                rows,
                before_tick,
                ttl_ticks,
                events,
            } => write!(
                f,
                "deleted {rows} inbox row(s) processed before t={before_tick} (TTL {ttl_ticks} \
                 ticks): {}",
                event_names(events)
            ),
            CleanupBusy => {
                f.write_str("SQLITE_BUSY: a consumer holds the write lock; nothing deleted")
            }
            Stopped { .. } | Healing { .. } => self.fmt_stop(f),
            _ => unreachable!("told by Display for TraceKind and fmt_others"),
        }
    }

    /// The English outcome of a commit that timed out, and of the lookup that may follow.
    fn fmt_commit_timeout(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceKind::*;
        match self {
            CommitTimeout {
                nth: _, // On the line's step: `commit#2`.
                fault,
                committed,
                strategy,
            } => write!(
                f,
                "COMMIT timed out (injected, faults.commit_timeout[{fault}]): {}; the consumer \
                 cannot tell, and {}",
                if *committed {
                    "it DID commit, the answer was lost"
                } else {
                    "it did NOT commit, the database rolled it back"
                },
                match strategy {
                    CommitTimeoutStrategy::Retry => "retries the transaction blindly",
                    CommitTimeoutStrategy::Abandon => "treats it as done",
                    CommitTimeoutStrategy::Lookup => "looks the event_id up before deciding",
                }
            ),
            Lookup { outcome } => f.write_str(match outcome {
                DbOutcome::Found => "inbox row found: the commit happened; go on",
                DbOutcome::NotFound => {
                    "inbox row not found: the commit did not happen; run the transaction again"
                }
                other => other.describe(),
            }),
            _ => unreachable!("not a commit timeout's entry"),
        }
    }

    /// The English outcome of the producer's entries: its transaction, its publications
    /// and its restart.
    fn fmt_producer(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceKind::*;
        match self {
            Published {
                event,
                how,
                confirmation,
            } => match confirmation {
                Confirmation::Direct => write!(f, "{how}"),
                Confirmation::Confirmed => write!(f, "e{event} {how}: confirmed"),
                Confirmation::TimedOut => write!(
                    f,
                    "e{event} {how}; it reached the broker, but the confirmation timed out: \
                     the producer publishes again"
                ),
            },
            PublishTimedOut { intent } => write!(
                f,
                "no confirmation for e{intent}'s publication: publishing again"
            ),
            TransferInserted { outbox } => f.write_str(if *outbox {
                "BEGIN; transfer and outbox row inserted (uncommitted)"
            } else {
                "BEGIN; transfer inserted (uncommitted)"
            }),
            TransferKnown => f.write_str(
                "transfer already committed by an earlier attempt: the request is answered \
                 from it, nothing else is done",
            ),
            TransferCommitted => f.write_str("COMMIT"),
            ProducerRestart { retries } => f.write_str(if *retries {
                "back; the client retries the request it got no answer for"
            } else {
                "back; the unanswered request is given up"
            }),
            _ => unreachable!("not the producer's entry"),
        }
    }

    /// The English outcome of the simulator's own entries: a limit reached, the healing
    /// phase begun.
    fn fmt_stop(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceKind::*;
        match self {
            Stopped { limit, healing } => {
                let phase = if *healing {
                    " of the healing phase"
                } else {
                    ""
                };
                match limit {
                    Limit::Steps(n) => write!(f, "step limit {n}{phase} reached"),
                    Limit::Ticks(n) => write!(f, "tick limit {n}{phase} reached"),
                    Limit::TraceEntries(n) => write!(f, "trace limit {n} entries reached"),
                    Limit::SqlVmSteps(n) => {
                        write!(f, "SQL limit of {n} virtual-machine steps reached")
                    }
                }
            }
            Healing {
                after,
                steps,
                ticks,
            } => write!(
                f,
                "{after} reached with work left: every fault is off from here, for up to \
                 {steps} more steps and {ticks} more ticks"
            ),
            _ => unreachable!("not the simulator's entry"),
        }
    }
}
