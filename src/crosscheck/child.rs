//! The consumer process of `crosscheck`: the hidden `__consumer` mode of the binary.
//!
//! It runs the same sans-IO [`Consumer`] state machine as the simulation, against a real
//! SQLite file through [`Store::open_file`], and asks its parent for everything outside
//! the database (deliveries, acks, whether a step is told to fail). Before and after every
//! step it says which boundary it reached and blocks until the parent answers, so a kill
//! there interrupts exactly that instant, open transaction included. It never exits
//! between steps: only when its stdin closes or the parent says `close`.

use super::wire::{self, FromChild, Setup, ToChild, WireDelivery, WireError};
use crate::broker::{Delivery, MessageId};
use crate::consumer::{Action, Consumer, StepResult};
use crate::model::{Boundary, Event, Protocol, Step, Tick};
use crate::store::{DbOutcome, Store, StoreOp};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};

/// Runs the consumer process over stdin and stdout until the parent closes it.
pub fn main() -> std::process::ExitCode {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match serve(&mut stdin.lock(), &mut stdout.lock()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("crosscheck consumer process: {e}");
            std::process::ExitCode::from(3)
        }
    }
}

/// What went wrong in the consumer process (never an injected fault: those are answers).
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    #[error("{0}")]
    Wire(#[from] WireError),
    #[error("could not open the database: {0}")]
    Store(#[from] crate::store::StoreError),
    #[error("the parent broke the protocol: {0}")]
    Protocol(String),
}

/// Serves one consumer process: setup, open, then turns until `close` or the end of input.
pub fn serve(r: &mut impl BufRead, w: &mut impl Write) -> Result<(), ChildError> {
    let setup = match wire::recv(r)? {
        ToChild::Setup(s) => s,
        other => {
            return Err(ChildError::Protocol(format!(
                "expected setup, got {other:?}"
            )))
        }
    };
    let mut process = Process::open(&setup)?;
    wire::send(w, &FromChild::Opened)?;
    loop {
        let message = match wire::recv(r) {
            Ok(m) => m,
            // The parent went away: exit as a process whose input closed does.
            Err(WireError::Closed) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        match message {
            ToChild::Turn { now } => {
                let mut io = Io { r, w };
                process.turn(now, &mut io)?;
            }
            ToChild::Ready => {
                let wants = process.consumer.handle_message_ready();
                wire::send(w, &FromChild::WantsTurn { wants })?;
            }
            ToChild::Close => {
                let rolled_back = process.store.drop_open_transaction();
                wire::send(w, &FromChild::Closed { rolled_back })?;
                return Ok(());
            }
            other => {
                return Err(ChildError::Protocol(format!(
                    "expected turn, ready or close, got {other:?}"
                )))
            }
        }
    }
}

struct Io<'a, R, W> {
    r: &'a mut R,
    w: &'a mut W,
}

impl<R: BufRead, W: Write> Io<'_, R, W> {
    fn send(&mut self, m: &FromChild) -> Result<(), ChildError> {
        Ok(wire::send(self.w, m)?)
    }

    fn recv(&mut self) -> Result<ToChild, ChildError> {
        Ok(wire::recv(self.r)?)
    }

    /// Says `boundary` is reached and waits for the parent's go (or a SIGKILL).
    fn reached(
        &mut self,
        boundary: Boundary,
        d: &Delivery,
        in_transaction: bool,
    ) -> Result<bool, ChildError> {
        self.send(&FromChild::Reached {
            boundary: boundary.to_string(),
            delivery: (*d).into(),
            in_transaction,
        })?;
        match self.recv()? {
            ToChild::Go { fail } => Ok(fail),
            other => Err(ChildError::Protocol(format!("expected go, got {other:?}"))),
        }
    }
}

/// The consumer process's memory: lost, all of it, when the process is killed.
struct Process {
    consumer: Consumer,
    store: Store,
    /// The payload of every message this process received, by message.
    payloads: BTreeMap<MessageId, Event>,
    track_transfer: bool,
}

impl Process {
    fn open(setup: &Setup) -> Result<Process, ChildError> {
        let steps = setup
            .steps
            .iter()
            .map(|s| {
                Step::parse(s).ok_or_else(|| ChildError::Protocol(format!("unknown step {s}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let protocol = Protocol::new(setup.protocol_name.clone(), "", steps)
            .map_err(|e| ChildError::Protocol(format!("invalid protocol: {e}")))?;
        Ok(Process {
            consumer: Consumer::new(protocol),
            store: Store::open_file(&setup.db, &setup.store, &setup.accounts)?,
            payloads: BTreeMap::new(),
            track_transfer: setup.track_transfer,
        })
    }

    fn payload(&self, d: &Delivery) -> &Event {
        self.payloads
            .get(&d.message)
            .expect("a delivery in hand was received by this process")
    }

    /// One turn, as the simulation's world takes it for one consumer: a clean-up action,
    /// or a step between its two boundaries.
    fn turn<R: BufRead, W: Write>(
        &mut self,
        now: Tick,
        io: &mut Io<'_, R, W>,
    ) -> Result<(), ChildError> {
        let Some(command) = self.consumer.poll_command() else {
            return io.send(&FromChild::TurnEnd {
                stale: true,
                waiting: false,
            });
        };
        let end = FromChild::TurnEnd {
            stale: false,
            waiting: false,
        };
        let step = match command.action {
            Action::Step(step) => step,
            Action::Rollback => {
                let outcome = self.store.execute(StoreOp::Rollback, now);
                self.performed(io, "rollback", command.delivery, outcome.describe(), false)?;
                self.consumer.handle_result(StepResult::Db(outcome));
                return io.send(&end);
            }
            Action::RecordAlert | Action::Lookup => {
                let d = command
                    .delivery
                    .expect("an alert or a lookup names its delivery");
                let event = self.payload(&d).clone();
                let (op, name) = match command.action {
                    Action::RecordAlert => (StoreOp::RecordPayloadAlert { event: &event }, "alert"),
                    _ => (StoreOp::CheckInbox { event: &event }, "lookup"),
                };
                let outcome = self.store.execute(op, now);
                self.performed(io, name, Some(d), outcome.describe(), false)?;
                self.consumer.handle_result(StepResult::Db(outcome));
                return io.send(&end);
            }
            Action::Nack => {
                let d = command.delivery.expect("a nack names its delivery");
                io.send(&FromChild::Nack { delivery: d.into() })?;
                self.consumer.handle_result(StepResult::Done);
                return io.send(&end);
            }
        };
        let delivery = match command.delivery {
            Some(d) => d,
            None => {
                io.send(&FromChild::Receive)?;
                match io.recv()? {
                    ToChild::Delivery {
                        delivery: Some(d),
                        event: Some(event),
                    } => {
                        self.payloads.insert(d.message, event);
                        d.into()
                    }
                    ToChild::Delivery { delivery: None, .. } => {
                        self.performed(io, "receive", None, "nothing ready: waiting", false)?;
                        self.consumer.handle_result(StepResult::Received(None));
                        return io.send(&FromChild::TurnEnd {
                            stale: false,
                            waiting: true,
                        });
                    }
                    other => {
                        return Err(ChildError::Protocol(format!(
                            "expected a delivery, got {other:?}"
                        )))
                    }
                }
            }
        };
        let fail = io.reached(
            Boundary::before(step),
            &delivery,
            self.store.in_transaction(),
        )?;
        let result = self.perform(now, step, &delivery, fail, io)?;
        self.consumer.handle_result(result);
        if !matches!(
            result,
            StepResult::Failed | StepResult::Db(DbOutcome::StaleSnapshot)
        ) {
            io.reached(
                Boundary::after(step),
                &delivery,
                self.store.in_transaction(),
            )?;
        }
        io.send(&end)
    }

    fn performed<R: BufRead, W: Write>(
        &self,
        io: &mut Io<'_, R, W>,
        action: &str,
        d: Option<Delivery>,
        outcome: &str,
        duplicate: bool,
    ) -> Result<(), ChildError> {
        io.send(&FromChild::Performed {
            action: action.to_string(),
            delivery: d.map(WireDelivery::from),
            outcome: outcome.to_string(),
            duplicate,
        })
    }

    /// Performs one step: against the file for a database step, through the parent for
    /// the broker and the outside world. Reports what it did.
    fn perform<R: BufRead, W: Write>(
        &mut self,
        now: Tick,
        step: Step,
        d: &Delivery,
        fail: bool,
        io: &mut Io<'_, R, W>,
    ) -> Result<StepResult, ChildError> {
        let name = step.name();
        if step == Step::Receive {
            self.performed(io, name, Some(*d), "received", false)?;
            return Ok(StepResult::Received(Some(*d)));
        }
        if fail && step != Step::ApplyEffect {
            self.performed(io, name, Some(*d), "failed (injected): nothing done", false)?;
            return Ok(StepResult::Failed);
        }
        let event = self.payload(d).clone();
        let op = match step {
            Step::Begin => StoreOp::Begin,
            Step::CheckInbox => StoreOp::CheckInbox { event: &event },
            Step::InsertInbox => StoreOp::InsertInbox { event: &event },
            Step::ApplyEffect => StoreOp::ApplyEffect {
                event: &event,
                fail_credit: fail,
                done: 0,
                read: None,
                track_transfer: self.track_transfer,
            },
            Step::Commit => StoreOp::Commit,
            Step::Ack => {
                io.send(&FromChild::Ack {
                    delivery: (*d).into(),
                })?;
                return match io.recv()? {
                    ToChild::Acked { outcome } => Ok(StepResult::Acked(outcome.into())),
                    other => Err(ChildError::Protocol(format!(
                        "expected an ack outcome, got {other:?}"
                    ))),
                };
            }
            Step::ExternalEffect => {
                io.send(&FromChild::External {
                    delivery: (*d).into(),
                })?;
                return Ok(StepResult::Done);
            }
            Step::ProduceOutput => {
                io.send(&FromChild::Produce {
                    delivery: (*d).into(),
                })?;
                return Ok(StepResult::Done);
            }
            other => {
                return Err(ChildError::Protocol(format!(
                    "step {other} is not run by a crosscheck consumer"
                )))
            }
        };
        let outcome = self.store.execute(op, now);
        self.performed(
            io,
            name,
            Some(*d),
            outcome.describe(),
            outcome.is_duplicate(),
        )?;
        Ok(StepResult::Db(outcome))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Protocol;
    use crate::scenario::Scenario;

    fn lines<T: serde::Serialize>(messages: &[T]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for m in messages {
            wire::send(&mut bytes, m).unwrap();
        }
        bytes
    }

    /// Runs a child on a scripted input (its answers do not depend on what it says, so a
    /// script is a whole conversation) and returns what it said.
    fn converse(script: &[ToChild]) -> (Result<(), ChildError>, Vec<FromChild>) {
        let mut input = std::io::Cursor::new(lines(script));
        let mut output = Vec::new();
        let result = serve(&mut input, &mut output);
        let said = String::from_utf8(output)
            .unwrap()
            .lines()
            .map(|l| wire::decode(l).unwrap())
            .collect();
        (result, said)
    }

    #[test]
    fn a_scripted_child_runs_the_inbox_steps_on_the_file_and_rolls_back_when_closed() {
        let dir = tempfile::tempdir().unwrap();
        let scenario = Scenario::new(Protocol::built_in("inbox").unwrap());
        let event = scenario.events()[0].clone();
        let accounts = scenario.workload.accounts();
        let db = dir.path().join("consumer.sqlite");
        drop(Store::open_file(&db, &scenario.store, &accounts).unwrap());
        let d = WireDelivery {
            message: 0,
            event: 0,
            copy: 0,
            attempt: 1,
        };
        let go = ToChild::Go { fail: false };
        let (result, said) = converse(&[
            ToChild::Setup(Setup {
                db: db.clone(),
                protocol_name: "inbox".into(),
                steps: scenario
                    .protocol
                    .steps
                    .iter()
                    .map(|s| s.name().into())
                    .collect(),
                store: scenario.store.clone(),
                accounts: accounts.clone(),
                track_transfer: false,
            }),
            ToChild::Turn { now: 0 },
            ToChild::Delivery {
                delivery: Some(d),
                event: Some(event.clone()),
            },
            go.clone(),
            go.clone(),
            ToChild::Turn { now: 1 },
            go.clone(),
            go.clone(),
            ToChild::Turn { now: 2 },
            go.clone(),
            go.clone(),
            ToChild::Ready,
            ToChild::Close,
        ]);
        result.unwrap();
        let reached = |b: &str, in_transaction| FromChild::Reached {
            boundary: b.into(),
            delivery: d,
            in_transaction,
        };
        let performed = |action: &str, outcome: &str| FromChild::Performed {
            action: action.into(),
            delivery: Some(d),
            outcome: outcome.into(),
            duplicate: false,
        };
        let end = FromChild::TurnEnd {
            stale: false,
            waiting: false,
        };
        assert_eq!(
            said,
            vec![
                FromChild::Opened,
                FromChild::Receive,
                reached("before:receive", false),
                performed("receive", "received"),
                reached("after:receive", false),
                end.clone(),
                reached("before:begin", false),
                performed("begin", "BEGIN"),
                reached("after:begin", true),
                end.clone(),
                reached("before:insert_inbox", true),
                performed("insert_inbox", "inbox row inserted"),
                reached("after:insert_inbox", true),
                end,
                FromChild::WantsTurn { wants: false },
                FromChild::Closed { rolled_back: true },
            ]
        );
        let mut store = Store::open_file(&db, &scenario.store, &accounts).unwrap();
        assert_eq!(store.event_rows(&event.event_id), (0, 0));
    }

    #[test]
    fn a_child_refuses_to_start_without_its_setup_and_ends_quietly_when_its_input_closes() {
        let (result, said) = converse(&[ToChild::Turn { now: 0 }]);
        assert!(matches!(result, Err(ChildError::Protocol(_))), "{result:?}");
        assert!(said.is_empty());
        let (result, said) = converse(&[]);
        assert!(matches!(result, Err(ChildError::Wire(WireError::Closed))));
        assert!(said.is_empty());
    }
}
