//! The line protocol between `crosscheck`'s parent (the broker and the clock) and its
//! child (the consumer process): one JSON object per line, each way, over the child's
//! stdin and stdout.
//!
//! The child speaks only when it needs something or has something to report, and then
//! blocks reading its next line until the parent answers. That blocking is what puts a
//! real process at a crash point: the child says "reached `before:commit`" and waits, with
//! its transaction open, until the parent either says "go on" or kills it.

use crate::broker::{AckOutcome, Delivery};
use crate::model::{Account, Event, Tick};
use crate::store::StoreConfig;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};

/// What the child needs before its first turn. Sent as the first line to every child.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The database file (created by the parent before the first child starts).
    pub db: std::path::PathBuf,
    pub protocol_name: String,
    /// The protocol's step names, in order.
    pub steps: Vec<String>,
    pub store: StoreConfig,
    pub accounts: Vec<Account>,
    /// Record transfers in `transfer_state` (the lifecycle workload).
    pub track_transfer: bool,
}

/// A delivery on the wire: [`Delivery`] with serde both ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireDelivery {
    pub message: usize,
    pub event: usize,
    pub copy: u32,
    pub attempt: u32,
}

impl From<Delivery> for WireDelivery {
    fn from(d: Delivery) -> WireDelivery {
        WireDelivery {
            message: d.message,
            event: d.event,
            copy: d.copy,
            attempt: d.attempt,
        }
    }
}

impl From<WireDelivery> for Delivery {
    fn from(d: WireDelivery) -> Delivery {
        Delivery {
            message: d.message,
            event: d.event,
            copy: d.copy,
            attempt: d.attempt,
        }
    }
}

/// The broker's answer to an ack, on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireAck {
    Accepted,
    AlreadyAcked,
    Stale,
    StaleAccepted,
}

impl From<AckOutcome> for WireAck {
    fn from(a: AckOutcome) -> WireAck {
        match a {
            AckOutcome::Accepted => WireAck::Accepted,
            AckOutcome::AlreadyAcked => WireAck::AlreadyAcked,
            AckOutcome::Stale => WireAck::Stale,
            AckOutcome::StaleAccepted => WireAck::StaleAccepted,
        }
    }
}

impl From<WireAck> for AckOutcome {
    fn from(a: WireAck) -> AckOutcome {
        match a {
            WireAck::Accepted => AckOutcome::Accepted,
            WireAck::AlreadyAcked => AckOutcome::AlreadyAcked,
            WireAck::Stale => AckOutcome::Stale,
            WireAck::StaleAccepted => AckOutcome::StaleAccepted,
        }
    }
}

/// Parent → child.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "snake_case")]
pub enum ToChild {
    /// The first line to every child.
    Setup(Setup),
    /// Take one turn (one step, or one clean-up action) at virtual tick `now`.
    Turn { now: Tick },
    /// The answer to [`FromChild::Receive`]: the delivery and its payload, or nothing ready.
    Delivery {
        delivery: Option<WireDelivery>,
        event: Option<Event>,
    },
    /// The answer to [`FromChild::Reached`]: go on; at a "before" boundary, `fail` says
    /// whether the step is told to fail (an injected fault).
    Go { fail: bool },
    /// The answer to [`FromChild::Ack`].
    Acked { outcome: WireAck },
    /// The broker has a message ready; the child answers [`FromChild::WantsTurn`].
    Ready,
    /// The run is over: roll back anything open, answer [`FromChild::Closed`], exit.
    Close,
}

/// Child → parent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "snake_case")]
pub enum FromChild {
    /// The database is open (and recovered, if a killed child left it mid-transaction).
    Opened,
    /// The consumer wants the next delivery.
    Receive,
    /// The consumer is at `boundary` (`before:STEP` / `after:STEP`) of `delivery` and waits
    /// for [`ToChild::Go`]; `in_transaction` says whether its connection has a transaction
    /// open right now (what a kill here would leave to SQLite's recovery).
    Reached {
        boundary: String,
        delivery: WireDelivery,
        in_transaction: bool,
    },
    /// The consumer did `action` (a step, or a rollback); `outcome` is what it got back
    /// (the database's answer for a database step); `duplicate` says the answer meant
    /// "already processed".
    Performed {
        action: String,
        delivery: Option<WireDelivery>,
        outcome: String,
        duplicate: bool,
    },
    /// Ack `delivery`; the child waits for [`ToChild::Acked`].
    Ack { delivery: WireDelivery },
    /// Reject `delivery` (no answer).
    Nack { delivery: WireDelivery },
    /// The side effect outside the database happened (no answer).
    External { delivery: WireDelivery },
    /// Publish the output of `delivery` to the output topic (no answer).
    Produce { delivery: WireDelivery },
    /// The turn is over. `stale`: the consumer had nothing to do; `waiting`: nothing was
    /// ready, it waits for [`ToChild::Ready`].
    TurnEnd { stale: bool, waiting: bool },
    /// The answer to [`ToChild::Ready`].
    WantsTurn { wants: bool },
    /// The answer to [`ToChild::Close`]: whether a transaction was open and rolled back.
    Closed { rolled_back: bool },
}

/// Why a line could not be exchanged.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("the other side closed the pipe")]
    Closed,
    #[error("pipe: {0}")]
    Io(#[from] std::io::Error),
    #[error("not a message of the crosscheck line protocol: {line:?} ({error})")]
    Malformed { line: String, error: String },
}

/// Writes one message as one line and flushes it.
pub fn send<T: Serialize>(w: &mut impl Write, message: &T) -> Result<(), WireError> {
    let mut line = serde_json::to_string(message).expect("protocol messages serialize");
    line.push('\n');
    w.write_all(line.as_bytes())?;
    w.flush()?;
    Ok(())
}

/// Reads the next message; [`WireError::Closed`] at the end of the stream.
pub fn recv<T: for<'de> Deserialize<'de>>(r: &mut impl BufRead) -> Result<T, WireError> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(WireError::Closed);
    }
    decode(&line)
}

/// Parses one line (its newline optional).
pub fn decode<T: for<'de> Deserialize<'de>>(line: &str) -> Result<T, WireError> {
    let line = line.trim_end_matches(['\n', '\r']);
    serde_json::from_str(line).map_err(|e| WireError::Malformed {
        line: line.to_string(),
        error: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventType;

    fn delivery() -> WireDelivery {
        WireDelivery {
            message: 2,
            event: 1,
            copy: 0,
            attempt: 3,
        }
    }

    fn event() -> Event {
        Event {
            index: 1,
            event_id: "id-1".into(),
            event_type: EventType::TransferCreated,
            transfer_id: "tr_00001".into(),
            source: "acc_00001".into(),
            target: "acc_00002".into(),
            amount_minor: 500,
        }
    }

    fn round_trip<T>(messages: Vec<T>)
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        let mut bytes = Vec::new();
        for m in &messages {
            send(&mut bytes, m).unwrap();
        }
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert_eq!(
            text.lines().count(),
            messages.len(),
            "one message, one line: {text}"
        );
        let mut r = std::io::Cursor::new(bytes);
        for m in &messages {
            assert_eq!(&recv::<T>(&mut r).unwrap(), m);
        }
        assert!(matches!(recv::<T>(&mut r), Err(WireError::Closed)));
    }

    #[test]
    fn every_parent_message_round_trips_on_one_line() {
        round_trip(vec![
            ToChild::Setup(Setup {
                db: "/tmp/x/consumer.sqlite".into(),
                protocol_name: "inbox".into(),
                steps: vec!["receive".into(), "begin".into()],
                store: StoreConfig::default(),
                accounts: vec![Account {
                    name: "acc_00001".into(),
                    initial_balance_minor: 7,
                }],
                track_transfer: false,
            }),
            ToChild::Turn { now: 12 },
            ToChild::Delivery {
                delivery: Some(delivery()),
                event: Some(event()),
            },
            ToChild::Delivery {
                delivery: None,
                event: None,
            },
            ToChild::Go { fail: true },
            ToChild::Acked {
                outcome: WireAck::Stale,
            },
            ToChild::Ready,
            ToChild::Close,
        ]);
    }

    #[test]
    fn every_child_message_round_trips_on_one_line() {
        round_trip(vec![
            FromChild::Opened,
            FromChild::Receive,
            FromChild::Reached {
                boundary: "before:commit".into(),
                delivery: delivery(),
                in_transaction: true,
            },
            FromChild::Performed {
                action: "insert_inbox".into(),
                delivery: Some(delivery()),
                outcome: "UNIQUE constraint failed: duplicate\nsecond line".into(),
                duplicate: true,
            },
            FromChild::Ack {
                delivery: delivery(),
            },
            FromChild::Nack {
                delivery: delivery(),
            },
            FromChild::External {
                delivery: delivery(),
            },
            FromChild::Produce {
                delivery: delivery(),
            },
            FromChild::TurnEnd {
                stale: false,
                waiting: true,
            },
            FromChild::WantsTurn { wants: false },
            FromChild::Closed { rolled_back: true },
        ]);
    }

    #[test]
    fn the_wire_forms_are_plain_json_with_a_msg_tag() {
        let mut bytes = Vec::new();
        send(&mut bytes, &ToChild::Turn { now: 4 }).unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "{\"msg\":\"turn\",\"now\":4}\n"
        );
        let m: FromChild = decode(
            "{\"msg\":\"reached\",\"boundary\":\"after:ack\",\
             \"delivery\":{\"message\":0,\"event\":0,\"copy\":0,\"attempt\":1},\
             \"in_transaction\":false}\r\n",
        )
        .unwrap();
        assert!(matches!(m, FromChild::Reached { ref boundary, .. } if boundary == "after:ack"));
    }

    #[test]
    fn garbage_and_unknown_messages_are_errors_that_quote_the_line() {
        for bad in [
            "hello",
            "{\"msg\":\"explode\"}",
            "{\"msg\":\"turn\"}",
            "{\"msg\":\"turn\",\"now\":-1}",
        ] {
            match decode::<ToChild>(bad) {
                Err(WireError::Malformed { line, .. }) => assert_eq!(line, bad),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn deliveries_and_acks_convert_both_ways() {
        let d = Delivery::from(delivery());
        assert_eq!(WireDelivery::from(d), delivery());
        for a in [
            AckOutcome::Accepted,
            AckOutcome::AlreadyAcked,
            AckOutcome::Stale,
            AckOutcome::StaleAccepted,
        ] {
            assert_eq!(AckOutcome::from(WireAck::from(a)), a);
        }
    }
}
