//! The canonical byte encoding of a trace entry's kind, which the trace hash is taken over.

use super::*;

/// Where [`TraceKind::encode`] writes: the trace's hasher, or a test's buffer.
///
/// The canonical encoding, which the golden trace hashes pin: a string is its UTF-8 bytes
/// and a 0 byte; an integer is 8 bytes little-endian (a signed one in two's complement); a
/// flag is one byte, 0 or 1; an enum value (a step, a database answer) is its stable name
/// as a string; a boundary is its side's name then its step's name; a step's name (in a
/// boundary, a database step or a failed step) has `#N` appended for the N-th occurrence
/// of a step the protocol repeats (N > 1), and its occurrence is not written otherwise; a
/// variant is its [`TraceKind::name`] then its fields in declaration order.
pub trait Encoder {
    fn bytes(&mut self, bytes: &[u8]);

    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
        self.bytes(&[0]);
    }

    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    fn i64(&mut self, v: i64) {
        self.bytes(&v.to_le_bytes());
    }

    fn flag(&mut self, v: bool) {
        self.bytes(&[u8::from(v)]);
    }
}

impl TraceKind {
    /// Writes the canonical encoding of this entry's kind (see [`Encoder`]).
    pub fn encode(&self, e: &mut impl Encoder) {
        use TraceKind::*;
        match self {
            // A repeated commit's occurrence goes with the name, as a step's does.
            CommitTimeout { nth, .. } if *nth > 1 => e.str(&format!("{}#{nth}", self.name())),
            _ => e.str(self.name()),
        }
        match self {
            Db { step, nth, outcome } => {
                encode_step(e, *step, *nth);
                encode_db(e, *outcome);
            }
            RolledBack { outcome } | Alert { outcome } | Lookup { outcome } => {
                encode_db(e, *outcome)
            }
            StepFailed { step, nth } => encode_step(e, *step, *nth),
            SqlFailed { step, nth, failure } => {
                encode_step(e, *step, *nth);
                // The fixed English, so that the hash is the one the message always had.
                e.str(&failure.english());
            }
            HandlerFailed { error } => e.str(error),
            Retrying { .. } | DeadLetterSent { .. } | GaveUp { .. } => self.encode_policy(e),
            Skipped { .. } | Caught { .. } | Kept { .. } | Jumped { .. } | LoopLimit { .. } => {
                self.encode_flow(e)
            }
            Busy { step } => e.str(step.name()),
            Called { service } => e.str(service),
            CommitTimeout {
                nth: _, // In the name.
                fault,
                committed,
                strategy,
            } => {
                e.u64(*fault as u64);
                e.flag(*committed);
                e.str(strategy.name());
            }
            Acked { outcome, offsets } => {
                e.str(outcome.name());
                e.flag(*offsets);
            }
            OutputProduced { staged } => e.flag(*staged),
            Sleep { ticks } => e.u64(*ticks),
            Stall { boundary, ticks } => {
                encode_boundary(e, *boundary);
                e.u64(*ticks);
            }
            Crash { boundary, cause } => {
                encode_boundary(e, *boundary);
                match cause {
                    CrashCause::Planned(i) => e.u64(*i as u64),
                    CrashCause::Random => e.u64(u64::MAX),
                }
            }
            Delivered { .. }
            | DeadLettered { .. }
            | OutputsSettled { .. }
            | ConnectionLost { .. } => self.encode_broker(e),
            _ => self.encode_upstream(e),
        }
    }

    /// The fields of a consumer's own decisions (branches, loops, caught failures).
    fn encode_flow(&self, e: &mut impl Encoder) {
        use TraceKind::*;
        match self {
            Skipped { step, nth } => encode_step(e, *step, *nth),
            Caught {
                step,
                nth,
                to,
                rollback,
            } => {
                encode_step(e, *step, *nth);
                e.str(to.name());
                e.flag(*rollback);
            }
            Kept {
                step,
                nth,
                into,
                row,
            } => {
                encode_step(e, *step, *nth);
                e.str(into);
                e.flag(row.is_some());
                e.str(row.as_deref().unwrap_or(""));
            }
            Jumped { from, to, pass } => {
                e.str(from.name());
                e.str(to.name());
                e.u64(u64::from(*pass));
            }
            LoopLimit { step, nth, passes } => {
                encode_step(e, *step, *nth);
                e.u64(u64::from(*passes));
            }
            _ => unreachable!("not a flow entry"),
        }
    }

    /// The fields of an error policy's entries.
    fn encode_policy(&self, e: &mut impl Encoder) {
        use TraceKind::*;
        match self {
            Retrying {
                attempt,
                backoff_ticks,
            } => {
                e.u64(u64::from(*attempt));
                e.u64(*backoff_ticks);
            }
            DeadLetterSent { outcome } => e.str(outcome.name()),
            GaveUp { then, step, nth } => {
                e.str(then.name());
                encode_step(e, *step, *nth);
            }
            _ => unreachable!("not an error policy's entry"),
        }
    }

    /// The fields of the broker's entries.
    fn encode_broker(&self, e: &mut impl Encoder) {
        use TraceKind::*;
        match self {
            Delivered { consumer } => e.u64(*consumer as u64),
            DeadLettered { deliveries, parked } => {
                e.u64(u64::from(*deliveries));
                e.flag(*parked);
            }
            OutputsSettled { committed } => e.flag(*committed),
            ConnectionLost {
                consumer,
                rebalance,
            } => {
                e.u64(*consumer as u64);
                e.flag(*rebalance);
            }
            _ => unreachable!("not the broker's entry"),
        }
    }

    /// The fields of the producer's, the relays', the retention job's and the simulator's
    /// kinds (and of the kinds that have none).
    fn encode_upstream(&self, e: &mut impl Encoder) {
        use TraceKind::*;
        match self {
            Published {
                event,
                how,
                confirmation,
            } => {
                e.u64(*event as u64);
                encode_publication(e, *how);
                e.str(confirmation_name(*confirmation));
            }
            PublishTimedOut { intent } => e.u64(*intent as u64),
            TransferInserted { outbox } => e.flag(*outbox),
            ProducerRestart { retries } => e.flag(*retries),
            RelayPublished { .. } | EmailSent { .. } | MarkedSent { .. } | InboxExpired { .. } => {
                self.encode_side(e)
            }
            Stopped { .. } | Healing { .. } => self.encode_stop(e),
            // No fields.
            Received | NothingReady | InvalidPayload | AckLost | ExternalEffectSent | Nacked
            | ConsumerRestart | CrashRollback | StopRollback | BrokerDuplicate | Visible
            | Requeued | LeaseExpired | LateReplay | DeadLettersEmpty | DeadLetterReplayed
            | OutputsDiscarded | TransferKnown | TransferCommitted | OutboxEmpty | RelayRestart
            | CleanupBusy => {}
            // Written by `encode`. Listed rather than matched by `_`, so that a new variant
            // does not compile until its fields are encoded somewhere.
            Db { .. }
            | RolledBack { .. }
            | Alert { .. }
            | Lookup { .. }
            | StepFailed { .. }
            | SqlFailed { .. }
            | HandlerFailed { .. }
            | Retrying { .. }
            | DeadLetterSent { .. }
            | GaveUp { .. }
            | Skipped { .. }
            | Kept { .. }
            | Caught { .. }
            | Jumped { .. }
            | LoopLimit { .. }
            | Busy { .. }
            | Called { .. }
            | CommitTimeout { .. }
            | Acked { .. }
            | OutputProduced { .. }
            | Sleep { .. }
            | Stall { .. }
            | Crash { .. }
            | Delivered { .. }
            | DeadLettered { .. }
            | OutputsSettled { .. }
            | ConnectionLost { .. } => {
                unreachable!("encoded by TraceKind::encode")
            }
        }
    }

    /// The fields of the relays' and the retention job's entries.
    fn encode_side(&self, e: &mut impl Encoder) {
        use TraceKind::*;
        match self {
            RelayPublished { row, event, how } => {
                e.i64(*row);
                e.u64(*event as u64);
                encode_publication(e, *how);
            }
            EmailSent {
                row,
                idempotency_key,
            } => {
                e.i64(*row);
                e.flag(*idempotency_key);
            }
            MarkedSent { step, row } => {
                e.str(step.name());
                e.i64(*row);
            }
            InboxExpired {
                rows,
                before_tick,
                ttl_ticks,
                events,
            } => {
                e.u64(u64::from(*rows));
                e.i64(*before_tick);
                e.u64(*ttl_ticks);
                e.u64(events.len() as u64);
                for event in events {
                    e.u64(*event as u64);
                }
            }
            _ => unreachable!("not a relay's or the retention job's entry"),
        }
    }

    /// The fields of the simulator's own entries: a limit reached, the healing phase begun.
    fn encode_stop(&self, e: &mut impl Encoder) {
        use TraceKind::*;
        match self {
            Stopped { limit, healing } => {
                encode_limit(e, *limit);
                e.flag(*healing);
            }
            Healing {
                after,
                steps,
                ticks,
            } => {
                encode_limit(e, *after);
                e.u64(*steps);
                e.u64(*ticks);
            }
            _ => unreachable!("not the simulator's entry"),
        }
    }
}

fn encode_db(e: &mut impl Encoder, outcome: DbOutcome) {
    e.str(outcome.name());
    match outcome {
        DbOutcome::Busy { done } | DbOutcome::Blocked { done } => e.u64(u64::from(done)),
        DbOutcome::BalancesRead { source, target } => {
            e.i64(source);
            e.i64(target);
        }
        _ => {}
    }
}

fn encode_boundary(e: &mut impl Encoder, boundary: Boundary) {
    e.str(match boundary.side {
        crate::model::Side::Before => "before",
        crate::model::Side::After => "after",
    });
    encode_step(e, boundary.step, boundary.nth);
}

/// A step's name, with `#N` for the N-th occurrence of a repeated one (N > 1).
fn encode_step(e: &mut impl Encoder, step: Step, nth: u8) {
    if nth > 1 {
        e.str(&format!("{}#{nth}", step.name()));
    } else {
        e.str(step.name());
    }
}

fn encode_publication(e: &mut impl Encoder, how: Publication) {
    match how {
        Publication::First => e.str("first"),
        Publication::Again => e.str("again"),
        Publication::Altered {
            amount_minor,
            original_minor,
        } => {
            e.str("altered");
            e.i64(amount_minor);
            e.i64(original_minor);
        }
        Publication::Minted { intent } => {
            e.str("minted");
            e.u64(intent as u64);
        }
    }
}

fn encode_limit(e: &mut impl Encoder, limit: Limit) {
    match limit {
        Limit::Steps(n) => {
            e.str("steps");
            e.u64(n);
        }
        Limit::Ticks(n) => {
            e.str("ticks");
            e.u64(n);
        }
        Limit::TraceEntries(n) => {
            e.str("trace_entries");
            e.u64(n as u64);
        }
        Limit::SqlVmSteps(n) => {
            e.str("sql_vm_steps");
            e.u64(n);
        }
    }
}

/// A publication's confirmation, as the encoding writes it.
fn confirmation_name(c: Confirmation) -> &'static str {
    match c {
        Confirmation::Direct => "direct",
        Confirmation::Confirmed => "confirmed",
        Confirmation::TimedOut => "timed_out",
    }
}
