//! The sentences: each trace entry told as what the actor did and why it matters.

use super::*;

impl Narrator<'_> {
    /// The sentence for one entry, and whether it reports something going wrong (a crash).
    pub(super) fn narrate(
        &mut self,
        entry: &TraceEntry,
        before: &Snapshot,
        after: &Snapshot,
    ) -> (String, bool) {
        let l = self.lang;
        match entry.actor {
            Actor::Consumer(c) => self.consumer(c, entry, before, after),
            Actor::Broker => (self.broker(entry, before, after), false),
            Actor::Producer if entry.action == "crash" => self.side_crash(entry, before),
            Actor::Producer => (self.producer(entry), false),
            Actor::Relay | Actor::EmailRelay if entry.action == "crash" => {
                self.side_crash(entry, before)
            }
            Actor::Relay | Actor::EmailRelay => (self.relay(entry), false),
            Actor::Cleanup if entry.outcome.starts_with("deleted") => {
                let events = entry.outcome.rsplit("): ").next().unwrap_or("");
                let ttl = self.scenario.store.retention.map_or(0, |r| r.ttl_ticks);
                (l.cleanup_deleted(events, ttl), false)
            }
            Actor::Cleanup => (l.cleanup_busy(), false),
            Actor::Sim if entry.action == "heal" => (
                l.healing_begins(
                    entry.outcome.starts_with("step limit"),
                    self.scenario.limits.max_steps,
                    self.scenario.limits.max_ticks,
                ),
                true,
            ),
            Actor::Sim => (l.run_stopped(entry.outcome.starts_with("step limit")), true),
        }
    }

    pub(super) fn consumer(
        &mut self,
        c: usize,
        entry: &TraceEntry,
        before: &Snapshot,
        after: &Snapshot,
    ) -> (String, bool) {
        let l = self.lang;
        let who = format!("consumer{c}");
        // The message (`e1 copy1`) for what the broker hands over and takes back; the event
        // (`e1`) for what the database knows.
        let ev = self.ev(entry);
        let base = l.ev(entry.event.unwrap_or(0), 0);
        let o = entry.outcome.as_str();
        let is = |outcome: DbOutcome| o == outcome.describe();
        let in_tx = before.open.iter().any(|t| t.consumer == c);
        let key = (entry.event.unwrap_or(0), entry.copy, entry.delivery);
        if let Some(told) = self.consumer_refusal(&who, entry, &ev, &base) {
            return told;
        }
        let text = match entry.action {
            "receive" if entry.event.is_none() => l.waiting(&who),
            "receive" => l.receive(&who, &ev, entry.delivery),
            "begin" => l.begin(&who, &ev),
            "check_inbox" if is(DbOutcome::Found) => {
                self.discarded.insert(key);
                l.check_found(&who, &base)
            }
            "check_inbox" => l.check_not_found(&who, &base),
            "insert_inbox" if is(DbOutcome::Duplicate) => {
                self.discarded.insert(key);
                l.inbox_duplicate(&who, &base)
            }
            "insert_inbox" if in_tx => {
                l.inbox_inserted(&who, &base, self.scenario.store.inbox_unique)
            }
            "insert_inbox" => l.inbox_inserted_autocommit(&who, &base),
            "apply_effect" => self.effect(c, entry, after, in_tx),
            "commit" if is(DbOutcome::Committed) => {
                let writes = self.writes_of(c, before);
                l.commit(&who, &self.tx_list(&writes))
            }
            "commit" if o.starts_with("COMMIT timed out") => l.commit_timeout(
                &who,
                o.contains("it DID commit"),
                self.scenario.consumer.on_commit_timeout,
            ),
            "rollback" => {
                let writes = self.writes_of(c, before);
                l.rollback(&who, &self.tx_list(&writes))
            }
            "ack" => self.ack(&who, entry, after),
            "nack" => l.nack(&who, &ev),
            "alert" if is(DbOutcome::AlertRecorded) => l.alert_recorded(&who, &base),
            "alert" => l.alert_exists(&who, &base),
            "lookup" if o.starts_with("inbox row found") => l.lookup_found(&who, &base),
            "lookup" => l.lookup_not_found(&who, &base),
            "external_effect" => l.external_effect(&who, &base),
            "enqueue_email" => l.email_queued(&who, &base),
            "produce_output" if o.contains("staged") => l.output_staged(&who, &base),
            "produce_output" => l.output_published(&who, &base),
            "crash" if o.starts_with("crash at") => {
                let writes = self.writes_of(c, before);
                let held = self.tx_list(&writes);
                self.crashed_with.insert(c, held);
                return (self.crash(&who, entry), true);
            }
            "crash" => {
                let held = self.crashed_with.remove(&c).unwrap_or_default();
                return (l.crash_rollback(&who, &held), true);
            }
            "restart" => l.restart(&who),
            "stall" => {
                let ticks = o
                    .split(" for ")
                    .nth(1)
                    .and_then(|t| t.split(' ').next())
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                l.stall(&who, &ev, ticks)
            }
            "stop" => return (l.stop_rollback(&who), true),
            "sleep" => {
                let ticks = o
                    .split("sleeps ")
                    .nth(1)
                    .and_then(|t| t.split(' ').next())
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                l.sleep(&who, &base, ticks)
            }
            _ => self.fallback(&who, entry),
        };
        (text, false)
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
        let o = entry.outcome.as_str();
        let is = |outcome: DbOutcome| o == outcome.describe();
        if is(DbOutcome::Busy { done: 0 }) || o.starts_with("SQLITE_BUSY:") {
            return Some((l.busy(who, entry.action), false));
        }
        if is(DbOutcome::StaleSnapshot) {
            return Some((l.stale_snapshot(who), false));
        }
        if o.starts_with("failed (injected)") {
            return Some((l.step_failed(who, entry.action, ev), true));
        }
        if o.starts_with("refused: the payload is invalid") {
            return Some((l.payload_refused(who, ev), true));
        }
        if is(DbOutcome::PayloadMismatch) {
            self.refused
                .insert((entry.event.unwrap_or(0), entry.copy, entry.delivery));
            return Some((l.payload_mismatch(who, base), true));
        }
        None
    }

    pub(super) fn effect(
        &mut self,
        c: usize,
        entry: &TraceEntry,
        after: &Snapshot,
        in_tx: bool,
    ) -> String {
        let l = self.lang;
        let who = format!("consumer{c}");
        let ev = l.ev(entry.event.unwrap_or(0), 0);
        let o = entry.outcome.as_str();
        let is = |outcome: DbOutcome| o == outcome.describe();
        let e = &self.r.events[entry.event.unwrap_or(0)];
        if is(DbOutcome::Applied) && e.event_type == EventType::TransferCompleted {
            return l.completion_applied(&who, &ev, &e.transfer_id, in_tx);
        }
        if is(DbOutcome::Applied) {
            // The amount as applied: a copy with another payload carries another amount.
            let view = after
                .open
                .iter()
                .find(|t| t.consumer == c)
                .and_then(|t| t.view.as_ref())
                .unwrap_or(&after.committed);
            let amount = view
                .credit_amounts
                .get(&e.event_id)
                .and_then(|a| a.last().copied())
                .unwrap_or(e.amount_minor);
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
        if o.starts_with("balances read") {
            return l.balances_read(&who, &ev);
        }
        self.fallback(&who, entry)
    }

    pub(super) fn ack(&self, who: &str, entry: &TraceEntry, after: &Snapshot) -> String {
        let l = self.lang;
        let ev = self.ev(entry);
        let o = entry.outcome.as_str();
        if o.starts_with("ack lost") {
            return l.ack_lost(who, &ev);
        }
        if o.starts_with("stale ack ignored") {
            return l.ack_stale(who, &ev);
        }
        if o.starts_with("already acked") {
            return l.ack_already(who, &ev);
        }
        if o.starts_with("stale ack accepted") {
            return l.ack_stale_accepted(who, &ev);
        }
        if o.starts_with("processed:") {
            return l.ack_log(who, &ev);
        }
        let event = entry.event.unwrap_or(0);
        let e = &self.r.events[event];
        let effect = after
            .committed
            .ledger
            .get(&e.event_id)
            .is_some_and(|x| x.debits.max(x.credits).max(x.completions) > 0)
            || after.committed.rejected.contains_key(&e.event_id);
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
        let steps = &self.scenario.protocol.steps;
        let position = |step| steps.iter().position(|s| *s == step);
        match (position(Step::Ack), position(Step::Commit)) {
            (Some(a), Some(c)) if a < c => l.ack_before_commit(who, &ev),
            _ => l.ack_without_effect(who, &ev),
        }
    }

    pub(super) fn crash(&mut self, who: &str, entry: &TraceEntry) -> String {
        let crash = self.next_crash();
        let l = self.lang;
        let phase = phase(&self.scenario.protocol.steps, crash.point.boundary);
        let c = crash.confirmed;
        l.crash(
            who,
            &crash.point.to_string(),
            crash.cause,
            phase,
            &l.confirmed(&c),
            &l.crash_consequence(
                &self.ev(entry),
                c.ledger_rows > 0,
                c.inbox_rows > 0,
                c.acked,
            ),
        )
    }

    pub(super) fn side_crash(&mut self, entry: &TraceEntry, before: &Snapshot) -> (String, bool) {
        let l = self.lang;
        let who = l.actor(entry.actor);
        if !entry.outcome.starts_with("crash at") {
            let _ = before;
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

    pub(super) fn broker(&self, entry: &TraceEntry, before: &Snapshot, after: &Snapshot) -> String {
        let l = self.lang;
        let ev = self.ev(entry);
        let o = entry.outcome.as_str();
        match entry.action {
            "deliver" => {
                let consumer = o
                    .rsplit("consumer")
                    .next()
                    .and_then(|c| c.parse::<usize>().ok())
                    .unwrap_or(0);
                l.deliver(&ev, &format!("consumer{consumer}"), entry.delivery)
            }
            "duplicate" => l.broker_duplicate(&ev),
            "requeue" => l.requeue(&ev),
            "visible" => l.visible(&ev),
            "lease expired" => l.lease_expired(&ev),
            "late replay" => l.late_replay(&ev),
            "connection lost" => {
                let consumer = o
                    .strip_prefix("consumer")
                    .and_then(|c| c.split(|ch: char| !ch.is_ascii_digit()).next())
                    .unwrap_or("0");
                let who = format!("consumer{consumer}");
                if o.contains("left the group") {
                    return l.rebalance(&who);
                }
                let released: Vec<String> = before
                    .messages
                    .iter()
                    .zip(&after.messages)
                    .filter(|(b, a)| {
                        matches!(b.state, MessageState::InFlight { .. })
                            && !matches!(a.state, MessageState::InFlight { .. })
                    })
                    .map(|(_, a)| l.ev(a.event, a.copy))
                    .collect();
                l.connection_lost(&who, &l.list(&released))
            }
            "dead-letter" => l.dead_lettered(&ev, entry.delivery, o.contains("parked until")),
            "dlq replay" if entry.event.is_none() => l.dlq_empty(),
            "dlq replay" => l.dlq_replayed(&ev),
            "transaction" if o.contains("commits") => l.broker_tx_commit(&ev),
            "transaction" => l.broker_tx_refused(&ev),
            "abort" => l.broker_tx_abort(&ev),
            _ => self.fallback(&l.actor(Actor::Broker), entry),
        }
    }

    /// `e3` from an outcome that starts with it (`e3 published: confirmed`).
    pub(super) fn leading_event(&self, text: &str) -> Option<String> {
        let rest = text.strip_prefix('e')?;
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let index: usize = digits.parse().ok()?;
        Some(self.lang.ev(index, 0))
    }

    pub(super) fn producer(&self, entry: &TraceEntry) -> String {
        let l = self.lang;
        let o = entry.outcome.as_str();
        // A producer's `copy` counts earlier publications of the intent: the event is `e1`.
        let ev = l.ev(entry.event.unwrap_or(0), 0);
        match entry.action {
            "publish" => {
                // A producer process names the event it published first; a direct
                // publication is about the entry's event.
                let published = self.leading_event(o).unwrap_or_else(|| ev.clone());
                let event = &self.r.events[entry.event.unwrap_or(0)];
                let what = if o.contains("new event_id") {
                    l.publish_minted(&published)
                } else if o.contains("ANOTHER payload") {
                    l.publish_altered(&ev, entry.copy)
                } else if o.contains("republished") {
                    l.republish(&l.ev(entry.event.unwrap_or(0), 0), entry.copy)
                } else {
                    l.publish(
                        &published,
                        event.event_type,
                        &event.source,
                        &event.target,
                        event.amount_minor,
                    )
                };
                if o.contains("timed out") {
                    l.with_publish_timeout(&what)
                } else {
                    what
                }
            }
            "timeout" => l.publish_timeout(
                &self
                    .leading_event(o.trim_start_matches("no confirmation for "))
                    .unwrap_or(ev),
            ),
            "insert_transfer" if o.starts_with("BEGIN; transfer and outbox row") => {
                l.insert_transfer(&ev, true)
            }
            "insert_transfer" if o.starts_with("BEGIN;") => l.insert_transfer(&ev, false),
            "insert_transfer" if o.starts_with("transfer already committed") => {
                l.transfer_already_recorded(&ev)
            }
            "commit_transfer" if o == "COMMIT" => l.commit_transfer(&ev),
            "insert_transfer" | "commit_transfer" => {
                l.busy(&l.actor(Actor::Producer), entry.action)
            }
            "restart" => l.producer_restart(o.contains("retries")),
            "stop" => l.side_rollback(&l.actor(Actor::Producer)),
            _ => self.fallback(&l.actor(Actor::Producer), entry),
        }
    }

    pub(super) fn relay(&self, entry: &TraceEntry) -> String {
        let l = self.lang;
        let o = entry.outcome.as_str();
        let who = l.actor(entry.actor);
        // A relay's `copy` counts earlier sends of the row's event: the event is `e1`.
        let ev = l.ev(entry.event.unwrap_or(0), 0);
        match entry.action {
            "poll" => l.relay_idle(&who),
            "relay_publish" => {
                let published = o
                    .split(": ")
                    .nth(1)
                    .and_then(|rest| self.leading_event(rest))
                    .unwrap_or(ev);
                l.relay_publish(&who, &published)
            }
            "send_email" => l.send_email(
                &who,
                &ev,
                o.contains("idempotency key") && !o.contains("without"),
            ),
            "mark_sent" | "mark_email_sent" if o.starts_with("SQLITE_BUSY") => {
                l.busy(&who, entry.action)
            }
            "mark_sent" | "mark_email_sent" => l.mark_sent(&who, &ev),
            "restart" => l.relay_restart(&who),
            _ => self.fallback(&who, entry),
        }
    }
}
