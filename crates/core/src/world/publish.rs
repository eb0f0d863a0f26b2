//! Publishing: the workload's events onto the broker (directly, or as the producer's
//! `publish` step), the identities minted for them, and the payload each copy carries.

use super::*;

impl World<'_> {
    /// A `direct` producer: every event is published at tick 0, then the republished
    /// copies, then the altered ones (same `event_id`, another payload: a producer bug),
    /// each publication timing out as many times as the plan says.
    pub(super) fn publish_all(&mut self) {
        let intents = self.scenario.workload.events;
        let exact = self.scenario.workload.republish.len();
        let mut alterations = vec![0u32; intents];
        let order: Vec<EventIndex> = (0..intents)
            .chain(self.scenario.workload.republish.iter().copied())
            .chain(self.scenario.workload.republish_altered.iter().copied())
            .collect();
        for (i, intent) in order.into_iter().enumerate() {
            if i >= intents + exact {
                alterations[intent] += 1;
                let altered = self.events[intent].altered(alterations[intent]);
                self.altered.insert((intent, self.copies[intent]), altered);
            }
            self.publish_recorded(intent);
            while self.publish_times_out(intent) {
                let timed_out = TraceKind::PublishTimedOut { intent };
                self.record(0, Actor::Producer, None, timed_out);
                self.publish_recorded(intent);
            }
        }
        self.drain_broker(0);
    }

    /// Whether the publication of intent (or event) `event` just made times out: the
    /// broker has it, the publisher never hears so (`faults.publish_timeout`).
    pub(super) fn publish_times_out(&mut self, event: EventIndex) -> bool {
        let query = StepQuery::Publish { event };
        self.faults.step_faults(query).publish_times_out
    }

    /// A `direct` publication at tick 0, with its own trace line.
    pub(super) fn publish_recorded(&mut self, intent: EventIndex) {
        let (event, how) = self.publish(0, intent);
        let d = Delivery {
            attempt: 0,
            ..self.message_ref(self.broker.messages().len() - 1)
        };
        debug_assert_eq!(d.event, event);
        let published = TraceKind::Published {
            event,
            how,
            confirmation: Confirmation::Direct,
        };
        self.record(0, Actor::Producer, Some(&d), published);
    }

    /// Publishes intent `intent`'s event: the same `event_id` every time under a stable
    /// identity; under a per-attempt identity every publication after the first mints a
    /// new event (same transfer, new `event_id`). Returns the event published and what
    /// kind of publication it was, for the publisher's trace entry.
    pub(super) fn publish(&mut self, now: Tick, intent: EventIndex) -> (EventIndex, Publication) {
        let first = self.intent_publications[intent] == 0;
        self.intent_publications[intent] += 1;
        // An altered copy is the producer bug "same event_id, another payload": it keeps
        // the id whatever the identity policy.
        let altered = self.altered.contains_key(&(intent, self.copies[intent]));
        let event = if !first && !altered && self.scenario.producer.identity == Identity::PerAttempt
        {
            self.mint(intent)
        } else {
            intent
        };
        let copy = self.copies[event];
        self.copies[event] += 1;
        let e = &self.events[event];
        let key = match self.scenario.broker.log.map(|l| l.key) {
            Some(PartitionKey::AccountId) => e.source.clone(),
            Some(PartitionKey::EventId) => e.event_id.clone(),
            Some(PartitionKey::TransferId) | None => e.transfer_id.clone(),
        };
        self.broker.handle_publish(now, event, copy, &key);
        let how = if event != intent {
            Publication::Minted { intent }
        } else if copy == 0 {
            Publication::First
        } else if let Some(altered) = self.altered.get(&(event, copy)) {
            Publication::Altered {
                amount_minor: altered.amount_minor,
                original_minor: e.amount_minor,
            }
        } else {
            Publication::Again
        };
        (event, how)
    }

    /// A new event for intent `intent`'s transfer with a fresh `event_id`, numbered after
    /// every event so far.
    pub(super) fn mint(&mut self, intent: EventIndex) -> EventIndex {
        // Validation keeps the workload's events plus this budget within twice MAX_EVENTS.
        let workload = &self.scenario.workload;
        let republished = workload.republish.len() + workload.republish_altered.len();
        let budget = self.scenario.faults.republication_budget(republished);
        assert!(
            (self.events.len() - workload.events) < budget as usize,
            "minted events are bounded by the republication budget ({budget})"
        );
        let index = self.events.len();
        let event = Event {
            index,
            event_id: self.identity_rng.uuid(),
            ..self.events[intent].clone()
        };
        self.events.push(event);
        self.copies.push(0);
        self.duplicates_discarded.push(0);
        self.inbox_expired_at.push(None);
        for sends in &mut self.relay_sends {
            sends.push(0);
        }
        index
    }

    /// Whether `event`'s payload is one the scenario declares invalid (`workload.invalid`):
    /// a workload event listed there, or an event minted for one (same transfer, same type).
    pub(super) fn is_invalid(&self, event: EventIndex) -> bool {
        let invalid = &self.scenario.workload.invalid;
        if invalid.is_empty() {
            return false;
        }
        let intents = self.scenario.workload.events;
        let intent = if event < intents {
            Some(event)
        } else {
            let e = &self.events[event];
            self.events[..intents]
                .iter()
                .position(|w| w.transfer_id == e.transfer_id && w.event_type == e.event_type)
        };
        intent.is_some_and(|i| invalid.binary_search(&i).is_ok())
    }

    /// A delivery-shaped reference to a message, for the trace (attempt = deliveries so far).
    pub(super) fn message_ref(&self, m: MessageId) -> Delivery {
        let msg = &self.broker.messages()[m];
        Delivery {
            message: m,
            event: msg.event,
            copy: msg.copy,
            attempt: msg.deliveries,
        }
    }
}
