//! The sentences: each trace entry told as what the actor did and why it matters.

use super::*;

impl Narrator<'_> {
    /// The sentence for one entry, and whether it reports something going wrong (a crash).
    pub(super) fn narrate(&mut self, entry: &TraceEntry, facts: &StepFacts) -> (String, bool) {
        let l = self.lang;
        let crash = matches!(
            entry.kind,
            TraceKind::Crash { .. } | TraceKind::CrashRollback
        );
        match (entry.actor, &entry.kind) {
            (Actor::Consumer(c), _) => self.consumer(c, entry, facts),
            (Actor::Broker, _) => (self.broker(entry, facts), false),
            (Actor::Producer | Actor::Relay | Actor::EmailRelay, _) if crash => {
                self.side_crash(entry)
            }
            (Actor::Producer, _) => (self.producer(entry), false),
            (Actor::Relay | Actor::EmailRelay, _) => (self.relay(entry), false),
            (Actor::Cleanup, TraceKind::InboxExpired { events, .. }) => {
                let ttl = self.scenario.store.retention.map_or(0, |r| r.ttl_ticks);
                let events = crate::model::trace::event_names(events);
                (l.cleanup_deleted(&events, ttl), false)
            }
            (Actor::Cleanup, _) => (l.cleanup_busy(), false),
            (Actor::Sim, TraceKind::Healing { after, .. }) => (
                l.healing_begins(
                    matches!(after, Limit::Steps(_)),
                    self.scenario.limits.max_steps,
                    self.scenario.limits.max_ticks,
                ),
                true,
            ),
            (Actor::Sim, TraceKind::Stopped { limit, .. }) => {
                (l.run_stopped(matches!(limit, Limit::Steps(_))), true)
            }
            (Actor::Sim, _) => (self.fallback(&l.actor(Actor::Sim), entry), true),
        }
    }

    pub(super) fn consumer(
        &mut self,
        c: usize,
        entry: &TraceEntry,
        facts: &StepFacts,
    ) -> (String, bool) {
        let l = self.lang;
        let who = format!("consumer{c}");
        // The message (`e1 copy1`) for what the broker hands over and takes back; the event
        // (`e1`) for what the database knows.
        let ev = self.ev(entry);
        let base = l.ev(entry.event.unwrap_or(0), 0);
        if let Some(told) = self.consumer_refusal(&who, entry, &ev, &base) {
            return told;
        }
        let text = match entry.kind {
            TraceKind::NothingReady => l.waiting(&who),
            TraceKind::Received => l.receive(&who, &ev, entry.delivery),
            TraceKind::Db { step, outcome, .. } => {
                match self.consumer_db(c, entry, step, outcome, facts) {
                    Some(text) => text,
                    None => self.fallback(&who, entry),
                }
            }
            TraceKind::CommitTimeout {
                committed,
                strategy,
                ..
            } => l.commit_timeout(&who, committed, strategy),
            TraceKind::RolledBack { .. } => l.rollback(&who, &self.tx_list(&facts.writes)),
            TraceKind::AckLost | TraceKind::Acked { .. } => self.ack(&who, entry, facts),
            TraceKind::Nacked => l.nack(&who, &ev),
            TraceKind::Alert { .. }
            | TraceKind::Lookup { .. }
            | TraceKind::ExternalEffectSent
            | TraceKind::Called { .. }
            | TraceKind::OutputProduced { .. } => self.auxiliary_step(&who, &base, &entry.kind),
            TraceKind::Crash { .. } | TraceKind::CrashRollback | TraceKind::StopRollback => {
                return (self.consumer_stop(c, &who, entry, facts), true);
            }
            TraceKind::ConsumerRestart => l.restart(&who),
            TraceKind::Stall { ticks, .. } => l.stall(&who, &ev, ticks),
            TraceKind::Sleep { ticks } => l.sleep(&who, &base, ticks),
            TraceKind::Retrying { .. }
            | TraceKind::DeadLetterSent { .. }
            | TraceKind::GaveUp { .. } => self.policy(&who, &ev, &entry.kind),
            TraceKind::Kept { .. }
            | TraceKind::Caught { .. }
            | TraceKind::Skipped { .. }
            | TraceKind::Jumped { .. }
            | TraceKind::LoopLimit { .. } => self.flow(&who, &ev, &entry.kind),
            _ => self.fallback(&who, entry),
        };
        (text, false)
    }

    /// A consumer stopped: crashed (what its open transaction held is kept for the
    /// rollback that follows), or its transaction rolled back after a crash or at the end.
    fn consumer_stop(
        &mut self,
        c: usize,
        who: &str,
        entry: &TraceEntry,
        facts: &StepFacts,
    ) -> String {
        let l = self.lang;
        match entry.kind {
            TraceKind::Crash { .. } => {
                let held = self.tx_list(&facts.writes);
                self.crashed_with.insert(c, held);
                self.crash(who, entry)
            }
            TraceKind::CrashRollback => {
                let held = self.crashed_with.remove(&c).unwrap_or_default();
                let db = self.scenario.store.engine.product();
                l.crash_rollback(who, &held, db)
            }
            TraceKind::StopRollback => {
                let db = self.scenario.store.engine.product();
                l.stop_rollback(who, db)
            }
            _ => unreachable!("not a consumer's stop"),
        }
    }

    /// A consumer's step besides its transaction's reads and writes: an alert, a lookup
    /// after a commit timeout, an external effect or call, an output message.
    fn auxiliary_step(&self, who: &str, base: &str, kind: &TraceKind) -> String {
        let l = self.lang;
        match kind {
            TraceKind::Alert {
                outcome: DbOutcome::AlertRecorded,
            } => l.alert_recorded(who, base),
            TraceKind::Alert { .. } => l.alert_exists(who, base),
            TraceKind::Lookup {
                outcome: DbOutcome::Found,
            } => l.lookup_found(who, base),
            TraceKind::Lookup { .. } => l.lookup_not_found(who, base),
            TraceKind::ExternalEffectSent => l.external_effect(who, base),
            TraceKind::Called { service } => l.called(who, service, base),
            TraceKind::OutputProduced { staged: true } => l.output_staged(who, base),
            TraceKind::OutputProduced { staged: false } => l.output_published(who, base),
            _ => unreachable!("not an auxiliary step"),
        }
    }

    /// An error policy's decisions: a retry, a move to the dead-letter queue, giving up.
    fn policy(&self, who: &str, ev: &str, kind: &TraceKind) -> String {
        let l = self.lang;
        match *kind {
            TraceKind::Retrying {
                attempt,
                backoff_ticks,
            } => l.policy_retry(who, ev, attempt, backoff_ticks),
            TraceKind::DeadLetterSent { outcome } => {
                let moved = matches!(outcome, AckOutcome::Accepted | AckOutcome::StaleAccepted);
                l.policy_dead_letter(who, ev, moved)
            }
            TraceKind::GaveUp { then, step, nth } => {
                let step = crate::model::trace::occurrence_name(step, nth);
                l.policy_gave_up(who, ev, &step, then)
            }
            _ => unreachable!("not an error policy's entry"),
        }
    }

    /// A consumer's own decisions: a kept row, a skipped step, a jump back, a loop at its
    /// bound.
    fn flow(&self, who: &str, ev: &str, kind: &TraceKind) -> String {
        let l = self.lang;
        let name = crate::model::trace::occurrence_name;
        match *kind {
            TraceKind::Kept {
                step,
                nth,
                into,
                ref row,
            } => l.flow_kept(who, &name(step, nth), into, row.as_deref()),
            TraceKind::Skipped { step, nth } => {
                let when = match step {
                    Step::Sql(s) => self.scenario.protocol.sql_step(s).when.as_ref(),
                    _ => None,
                };
                let when = when.map(ToString::to_string).unwrap_or_default();
                l.flow_skipped(who, ev, &name(step, nth), &when)
            }
            TraceKind::Jumped { from, to, pass } => {
                l.flow_jumped(who, ev, (from.name(), to.name()), pass)
            }
            TraceKind::Caught {
                step,
                nth,
                to,
                rollback,
            } => l.flow_caught(who, ev, (&name(step, nth), to.name()), rollback),
            TraceKind::LoopLimit { step, nth, passes } => {
                l.flow_loop_limit(who, ev, &name(step, nth), passes)
            }
            _ => unreachable!("not a flow entry"),
        }
    }

    /// A consumer's step the store answered (past the refusals): `None` for an answer the
    /// step does not give.
    fn consumer_db(
        &mut self,
        c: usize,
        entry: &TraceEntry,
        step: Step,
        outcome: DbOutcome,
        facts: &StepFacts,
    ) -> Option<String> {
        let in_tx = facts.in_tx;
        let l = self.lang;
        let who = format!("consumer{c}");
        let ev = self.ev(entry);
        let base = l.ev(entry.event.unwrap_or(0), 0);
        let key = (entry.event.unwrap_or(0), entry.copy, entry.delivery);
        Some(match (step, outcome) {
            (Step::Begin, _) => match self.db_name(entry) {
                None => l.begin(&who, &ev),
                Some(db) => l.begin_on(&who, &ev, db),
            },
            (Step::CheckInbox, DbOutcome::Found) => {
                self.discarded.insert(key);
                l.check_found(&who, &base)
            }
            (Step::CheckInbox, _) => l.check_not_found(&who, &base),
            (Step::InsertInbox, DbOutcome::Duplicate) => {
                self.discarded.insert(key);
                l.inbox_duplicate(&who, &base)
            }
            (Step::InsertInbox, _) if in_tx => {
                l.inbox_inserted(&who, &base, self.scenario.store.inbox_unique)
            }
            (Step::InsertInbox, _) => l.inbox_inserted_autocommit(&who, &base),
            (Step::ApplyEffect, _) => self.effect(c, entry, outcome, facts),
            (Step::Commit, DbOutcome::Committed) => {
                let writes = self.tx_list(&facts.writes);
                match self.db_name(entry) {
                    None => l.commit(&who, &writes),
                    Some(db) => l.commit_on(&who, &writes, db),
                }
            }
            (Step::EnqueueEmail, _) => l.email_queued(&who, &base),
            (Step::Sql(name), _) => self.sql_step(c, entry, name, outcome, in_tx),
            _ => return None,
        })
    }

    /// An entry where consumer `who`'s step did not happen: SQLite busy or a stale
    /// snapshot, an injected failure, an invalid payload, another payload under a known
    /// `event_id`.
    fn consumer_refusal(
        &mut self,
        who: &str,
        entry: &TraceEntry,
        ev: &str,
        base: &str,
    ) -> Option<(String, bool)> {
        let l = self.lang;
        match (&entry.kind, entry.kind.db_answer()) {
            (_, Some(DbOutcome::Busy { .. })) => Some((l.busy(who, &entry.verb()), false)),
            (_, Some(DbOutcome::Blocked { .. })) => Some((l.blocked(who, &entry.verb()), false)),
            (_, Some(DbOutcome::StaleSnapshot)) => Some((l.stale_snapshot(who), false)),
            (TraceKind::StepFailed { .. }, _) => {
                Some((l.step_failed(who, &entry.verb(), ev), true))
            }
            (TraceKind::SqlFailed { failure, .. }, _) => {
                let engine = self.scenario.store.engine;
                Some((l.sql_failed(who, &entry.verb(), ev, engine, failure), true))
            }
            (TraceKind::InvalidPayload, _) => Some((l.payload_refused(who, ev), true)),
            (_, Some(DbOutcome::PayloadMismatch)) => {
                self.refused
                    .insert((entry.event.unwrap_or(0), entry.copy, entry.delivery));
                Some((l.payload_mismatch(who, base), true))
            }
            _ => None,
        }
    }

    pub(super) fn effect(
        &mut self,
        c: usize,
        entry: &TraceEntry,
        outcome: DbOutcome,
        facts: &StepFacts,
    ) -> String {
        let l = self.lang;
        let in_tx = facts.in_tx;
        let who = format!("consumer{c}");
        let ev = l.ev(entry.event.unwrap_or(0), 0);
        let is = |o: DbOutcome| o == outcome;
        let e = &self.r.events[entry.event.unwrap_or(0)];
        if is(DbOutcome::Applied) && e.event_type == EventType::TransferCompleted {
            return l.completion_applied(&who, &ev, &e.transfer_id, in_tx);
        }
        if is(DbOutcome::Applied) {
            // The amount as applied: a copy with another payload carries another amount.
            let amount = facts.applied_amount.unwrap_or(e.amount_minor);
            return l.effect_applied(&who, &ev, &e.source, &e.target, amount, in_tx);
        }
        if is(DbOutcome::CreditFailed) {
            return l.credit_failed(&who, &ev);
        }
        if is(DbOutcome::Buffered) {
            return l.effect_buffered(&who, &ev);
        }
        if is(DbOutcome::AppliedWithPending) {
            return l.effect_applied_with_pending(&who, &ev);
        }
        if is(DbOutcome::Rejected) {
            return l.effect_rejected(&who, &ev);
        }
        if is(DbOutcome::BusinessDuplicate) {
            self.discarded
                .insert((entry.event.unwrap_or(0), entry.copy, entry.delivery));
            return l.business_duplicate(&who, &ev);
        }
        if is(DbOutcome::AlreadyCompleted) {
            return l.already_completed(&who, &ev);
        }
        if matches!(outcome, DbOutcome::BalancesRead { .. }) {
            return l.balances_read(&who, &ev);
        }
        self.fallback(&who, entry)
    }

    pub(super) fn ack(&self, who: &str, entry: &TraceEntry, facts: &StepFacts) -> String {
        let l = self.lang;
        let ev = self.ev(entry);
        match entry.kind {
            TraceKind::AckLost => return l.ack_lost(who, &ev),
            TraceKind::Acked { outcome, offsets } => match outcome {
                AckOutcome::Stale => return l.ack_stale(who, &ev),
                AckOutcome::AlreadyAcked => return l.ack_already(who, &ev),
                AckOutcome::StaleAccepted => return l.ack_stale_accepted(who, &ev),
                AckOutcome::Accepted if offsets => return l.ack_log(who, &ev),
                AckOutcome::Accepted => {}
            },
            _ => {}
        }
        let event = entry.event.unwrap_or(0);
        let effect = facts.effect_committed;
        let key = (event, entry.copy, entry.delivery);
        if self.refused.contains(&key) {
            return l.ack_after_refusal(who, &ev);
        }
        if self.discarded.contains(&key) {
            return l.ack_after_duplicate(who, &ev);
        }
        if effect {
            return l.ack_after_commit(who, &ev);
        }
        let protocol = &self.scenario.protocol;
        let ack = protocol.steps.iter().position(|s| *s == Step::Ack);
        match (ack, protocol.effect_commit()) {
            (Some(a), Some(c)) if a < c => l.ack_before_commit(who, &ev),
            _ => l.ack_without_effect(who, &ev),
        }
    }

    pub(super) fn crash(&mut self, who: &str, entry: &TraceEntry) -> String {
        let crash = self.next_crash();
        let l = self.lang;
        let phase = phase_words(l, &self.scenario.protocol, crash.point.boundary);
        let c = crash.confirmed;
        l.crash(
            who,
            &crash.point.to_string(),
            crash.cause,
            phase.as_deref(),
            &self.confirmed(&c),
            &l.crash_consequence(
                &self.ev(entry),
                c.ledger_rows > 0,
                c.inbox_rows > 0,
                c.acked,
            ),
        )
    }

    pub(super) fn side_crash(&mut self, entry: &TraceEntry) -> (String, bool) {
        let l = self.lang;
        let who = l.actor(entry.actor);
        if entry.kind == TraceKind::CrashRollback {
            return (l.side_rollback(&who), true);
        }
        let crash = self.next_crash();
        let left = side_crash_left(self.scenario, crash.point.boundary);
        (
            l.side_crash(
                &who,
                &crash.point.to_string(),
                crash.cause,
                left,
                &l.ev(crash.point.event, 0),
            ),
            true,
        )
    }

    pub(super) fn next_crash(&mut self) -> CrashRecord {
        let crash = self.r.crashes[self.crashes_seen];
        self.crashes_seen += 1;
        crash
    }

    pub(super) fn broker(&self, entry: &TraceEntry, facts: &StepFacts) -> String {
        let l = self.lang;
        let ev = self.ev(entry);
        match entry.kind {
            TraceKind::Delivered { consumer } => {
                l.deliver(&ev, &format!("consumer{consumer}"), entry.delivery)
            }
            TraceKind::BrokerDuplicate => l.broker_duplicate(&ev),
            TraceKind::Requeued => l.requeue(&ev),
            TraceKind::Visible => l.visible(&ev),
            TraceKind::LeaseExpired => l.lease_expired(&ev),
            TraceKind::LateReplay => l.late_replay(&ev),
            TraceKind::ConnectionLost {
                consumer,
                rebalance,
            } => {
                let who = format!("consumer{consumer}");
                if rebalance {
                    return l.rebalance(&who);
                }
                let released: Vec<String> = (facts.released.iter())
                    .map(|&(e, copy)| l.ev(e, copy))
                    .collect();
                l.connection_lost(&who, &l.list(&released))
            }
            TraceKind::DeadLettered { parked, .. } => l.dead_lettered(&ev, entry.delivery, parked),
            TraceKind::DeadLettersEmpty => l.dlq_empty(),
            TraceKind::DeadLetterReplayed => l.dlq_replayed(&ev),
            TraceKind::OutputsSettled { committed: true } => l.broker_tx_commit(&ev),
            TraceKind::OutputsSettled { committed: false } => l.broker_tx_refused(&ev),
            TraceKind::OutputsDiscarded => l.broker_tx_abort(&ev),
            _ => self.fallback(&l.actor(Actor::Broker), entry),
        }
    }

    pub(super) fn producer(&self, entry: &TraceEntry) -> String {
        let l = self.lang;
        // A producer's `copy` counts earlier publications of the intent: the event is `e1`.
        let ev = l.ev(entry.event.unwrap_or(0), 0);
        match entry.kind {
            TraceKind::Published {
                event,
                how,
                confirmation,
            } => {
                let published = l.ev(event, 0);
                let what = match how {
                    Publication::Minted { .. } => l.publish_minted(&published),
                    Publication::Altered { .. } => l.publish_altered(&ev, entry.copy),
                    Publication::Again => l.republish(&ev, entry.copy),
                    Publication::First if self.scenario.store.custom.is_some() => {
                        let (kind, payload) = self.own_payload(entry.event.unwrap_or(0));
                        l.publish_own(&published, &kind, &payload)
                    }
                    Publication::First => {
                        let e = &self.r.events[entry.event.unwrap_or(0)];
                        l.publish(
                            &published,
                            e.event_type,
                            &e.source,
                            &e.target,
                            e.amount_minor,
                        )
                    }
                };
                if confirmation == Confirmation::TimedOut {
                    l.with_publish_timeout(&what)
                } else {
                    what
                }
            }
            TraceKind::PublishTimedOut { intent } => {
                l.publish_timeout(Actor::Producer, &l.ev(intent, 0))
            }
            TraceKind::TransferInserted { outbox } => l.insert_transfer(&ev, outbox),
            TraceKind::TransferKnown => l.transfer_already_recorded(&ev),
            TraceKind::TransferCommitted => l.commit_transfer(&ev),
            TraceKind::Busy { .. } => l.busy(&l.actor(Actor::Producer), entry.action()),
            TraceKind::ProducerRestart { retries } => l.producer_restart(retries),
            TraceKind::StopRollback => l.side_rollback(&l.actor(Actor::Producer)),
            _ => self.fallback(&l.actor(Actor::Producer), entry),
        }
    }

    pub(super) fn relay(&self, entry: &TraceEntry) -> String {
        let l = self.lang;
        let who = l.actor(entry.actor);
        // A relay's `copy` counts earlier sends of the row's event: the event is `e1`.
        let ev = l.ev(entry.event.unwrap_or(0), 0);
        match entry.kind {
            TraceKind::OutboxEmpty => l.relay_idle(&who),
            TraceKind::RelayPublished { event, .. } => l.relay_publish(&who, &l.ev(event, 0)),
            TraceKind::EmailSent {
                idempotency_key, ..
            } => l.send_email(&who, &ev, idempotency_key),
            TraceKind::Busy { .. } => l.busy(&who, entry.action()),
            TraceKind::MarkedSent { .. } => l.mark_sent(&who, &ev),
            TraceKind::RelayRestart => l.relay_restart(&who),
            TraceKind::PublishTimedOut { intent } => {
                l.publish_timeout(entry.actor, &l.ev(intent, 0))
            }
            _ => self.fallback(&who, entry),
        }
    }
}
