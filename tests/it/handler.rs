//! Rust handlers under the simulator (issue 15, item 3): the example's two handlers judged
//! as the seeds say, a handler explored exactly like the same protocol written in SQL
//! (schedule for schedule, outcome for outcome), and what a handler may get wrong: an
//! error, a refused statement, nondeterminism, two consumers.

#[allow(dead_code)]
#[path = "../../examples/my_handler.rs"]
pub(crate) mod my_handler;

use delivery_sim::explore::{explore, ExploreOptions};
use delivery_sim::handler::{Context, Handler, HandlerError};
use delivery_sim::testing::check_handler;
use delivery_sim::{Guarantee, Protocol, Scenario};
use my_handler::{scenario, ClaimFirst, RememberInMemory};

#[test]
fn the_example_handlers_are_judged_as_the_seeds_say() {
    let s = scenario();
    let c = check_handler(RememberInMemory::default, &s, 1).expect_err("the bug is found");
    assert_eq!(c.observed, Guarantee::AtLeastOnce, "{c}");
    assert_eq!(c.crash_arguments(), "--crash 'after:commit e0 d1'", "{c}");
    assert_eq!(c.broken_events, ["e0 duplicated"], "{c}");
    assert!(
        c.token.is_empty(),
        "the command line cannot replay a handler"
    );
    // The counterexample's scenario replays the run: same trace, same verdict.
    let again = delivery_sim::run(&c.replay_scenario);
    assert_eq!(again.trace.hash_hex(), c.trace_hash);
    assert_eq!(
        check_handler(|| ClaimFirst, &s, 2).map(|c| c.guarantee),
        Ok(Guarantee::ExactlyOnce)
    );
}

/// The example's fixed handler as a protocol of SQL steps: the same calls in the same
/// order, so the same crash points.
const CLAIM_FIRST_IN_SQL: &str = r#"
  "protocol": { "name": "claim-first", "steps": [
    "receive",
    { "name": "begin", "sql": "BEGIN" },
    { "name": "claim", "sql": "INSERT INTO processed_event VALUES (:event_id, :now)",
      "duplicate_if": "unique_violation" },
    { "name": "take_stock", "sql": "UPDATE stock SET qty = qty - :qty WHERE sku = :sku" },
    { "name": "record", "sql": "INSERT INTO reservation VALUES (:event_id, :sku, :qty)" },
    { "name": "commit", "sql": "COMMIT" },
    "ack" ] },"#;

fn as_sql(s: &Scenario) -> Scenario {
    let text = include_str!("../../scenarios/sql-reserve-stock-inbox.json");
    let at = text.find("\"protocol\"").unwrap();
    let end = text.find("\"check\"").unwrap();
    let text = format!("{}{}\n  {}", &text[..at], CLAIM_FIRST_IN_SQL, &text[end..]);
    let mut sql = Scenario::from_json(&text, "test").expect("valid");
    sql.workload = s.workload.clone();
    sql.consumers = s.consumers;
    sql
}

/// Every schedule of an exploration, with every event's outcome and the run's length.
fn outcomes(s: &Scenario, depth: usize) -> Vec<(String, Vec<String>)> {
    let options = ExploreOptions {
        depth,
        prune: false,
        ..ExploreOptions::default()
    };
    explore(s, options)
        .runs
        .iter()
        .map(|r| {
            let crashes: Vec<String> = r.crashes.iter().map(|p| p.to_string()).collect();
            let events = r.result.verdict.events.iter();
            let mut outcomes: Vec<String> = events
                .map(|e| format!("e{} {}", e.event, e.outcome.name()))
                .collect();
            outcomes.push(format!("{} steps, t={}", r.result.steps, r.result.end_tick));
            (crashes.join(" + "), outcomes)
        })
        .collect()
}

/// A step failure on the claim, a lost ack, a broker duplicate and a stall: faults the
/// handler and the SQL steps meet at the same boundaries.
fn faults() -> delivery_sim::fault::FaultPlan {
    use delivery_sim::fault::{DeliveryFault, FailSpec, FaultPlan, StallSpec};
    use delivery_sim::model::Boundary;
    let claim = delivery_sim::Step::parse("claim").expect("interned by the SQL scenario");
    let on = |event| DeliveryFault {
        event: Some(event),
        delivery: None,
        times: 1,
    };
    FaultPlan {
        fail: vec![FailSpec {
            step: claim,
            nth: None,
            event: Some(1),
            delivery: None,
            times: 1,
            until_tick: None,
        }],
        stall: vec![StallSpec {
            at: Boundary::before(delivery_sim::Step::Commit),
            event: Some(0),
            delivery: Some(1),
            ticks: 30,
        }],
        lose_ack: vec![on(0)],
        duplicate_delivery: vec![on(1)],
        ..FaultPlan::default()
    }
}

#[test]
fn a_handler_explores_like_the_same_protocol_written_in_sql() {
    for (events, consumers, depth, faulty) in [
        (2, 1, 2, false),
        (3, 1, 1, false),
        (2, 2, 1, false),
        (2, 1, 2, true),
        (2, 2, 1, true),
    ] {
        let mut s = scenario();
        s.workload.events = events;
        s.consumers = consumers;
        s.faults = Default::default();
        let mut sql = as_sql(&s);
        if faulty {
            s.faults = faults();
            sql.faults = faults();
        }
        s.protocol = Protocol::handler("claim-first", || ClaimFirst);
        let (by_handler, by_sql) = (outcomes(&s, depth), outcomes(&sql, depth));
        assert!(by_handler.len() > 10);
        assert_eq!(
            by_handler, by_sql,
            "{events} events, {consumers} consumers, faults: {faulty}"
        );
    }
}

/// Gives up on an event's first delivery: the framework rejects it, the broker redelivers.
#[derive(Clone)]
struct FailsFirstDelivery;

impl Handler for FailsFirstDelivery {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        ctx.begin()?;
        ctx.execute(
            "claim",
            "INSERT INTO processed_event VALUES (:event_id, 0)",
            &[],
        )?;
        if ctx.attempt() == 1 {
            return Err(HandlerError::Other("not today".into()));
        }
        let q = [(":q", 5.into())];
        ctx.execute(
            "take",
            "UPDATE stock SET qty = qty - :q WHERE sku = :sku",
            &q,
        )?;
        ctx.execute(
            "record",
            "INSERT INTO reservation VALUES (:event_id, :sku, :q)",
            &q,
        )?;
        ctx.commit()?;
        ctx.ack()
    }
}

#[test]
fn an_error_rolls_back_and_redelivers_and_the_handler_gets_its_parameters() {
    let mut s = scenario();
    s.protocol = Protocol::handler("fails-first", || FailsFirstDelivery);
    s.faults = Default::default();
    let r = delivery_sim::run(&s);
    let text = delivery_sim::report::text::trace_text(delivery_sim::report::lang::Lang::En, &r);
    assert_eq!(r.verdict.events.len(), 3);
    assert!(
        r.verdict.events.iter().all(|e| e.outcome.name() == "once"),
        "{text}"
    );
    // The first claim was rolled back with the rest (else the redelivery would fail on
    // the primary key), and the explicit parameter was bound in both statements (the
    // invariant: stock plus reservations stay 200).
    assert!(text.contains("rollback         e0 d1"), "{text}");
    assert!(text.contains("returned an error: not today"), "{text}");
    assert!(
        text.contains("rejected: the broker will redeliver"),
        "{text}"
    );
    assert!(r.verdict.conserved, "{text}");
}

/// Asks for something else on every run: the simulator cannot replay it.
#[derive(Clone)]
struct Clocked;

static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Handler for Clocked {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        ctx.begin()?;
        let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) as i64;
        let sql = "INSERT INTO processed_event VALUES (:event_id, :n)";
        ctx.execute("claim", sql, &[("n", n.into())])?;
        ctx.commit()?;
        ctx.ack()
    }
}

#[test]
fn a_nondeterministic_handler_is_named_not_judged() {
    let mut s = scenario();
    s.protocol = Protocol::handler("clocked", || Clocked);
    let panic = std::panic::catch_unwind(|| delivery_sim::run(&s)).expect_err("refused");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("the handler is not deterministic"),
        "{message}"
    );
}

/// Reads the connection's state in SQL (which a restarted process would not have):
/// refused at the call, with the load-time check's message.
#[derive(Clone)]
struct ConnectionState;

impl Handler for ConnectionState {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        ctx.begin()?;
        let sql = "INSERT INTO processed_event VALUES (:event_id, last_insert_rowid())";
        ctx.execute("claim", sql, &[])?;
        ctx.commit()?;
        ctx.ack()
    }
}

#[test]
fn a_refused_statement_fails_the_call_with_the_reason_and_the_event_is_not_once() {
    let mut s = scenario();
    s.protocol = Protocol::handler("connection-state", || ConnectionState);
    s.faults = Default::default();
    let r = delivery_sim::run(&s);
    let text = delivery_sim::report::text::trace_text(delivery_sim::report::lang::Lang::En, &r);
    assert!(
        text.contains("last_insert_rowid() reads the connection's state"),
        "{text}"
    );
    assert!(
        r.verdict.events.iter().all(|e| e.outcome.name() != "once"),
        "{text}"
    );
    let c = check_handler(|| ConnectionState, &scenario(), 1).expect_err("nothing is applied");
    assert_eq!(c.observed, Guarantee::AtMostOnce, "{c}");
}

/// Check-then-act over the handler's own read: with two consumers and a broker that
/// duplicates, both copies can pass the check.
#[derive(Clone)]
struct CheckThenAct;

impl Handler for CheckThenAct {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        let seen = "SELECT 1 FROM processed_event WHERE event_id = :event_id";
        if ctx.query_row("check", seen, &[])?.is_some() {
            return ctx.ack();
        }
        ctx.begin()?;
        ctx.execute(
            "mark",
            "INSERT OR IGNORE INTO processed_event VALUES (:event_id, :now)",
            &[],
        )?;
        record(ctx)?;
        ctx.commit()?;
        ctx.ack()
    }
}

#[test]
fn two_consumers_interleave_deterministically_and_check_then_act_duplicates() {
    let mut s = one_event_copied(scenario());
    s.consumers = 2;
    let c = check_handler(|| CheckThenAct, &s, 1).expect_err("the race is found");
    assert_eq!(c.observed, Guarantee::AtLeastOnce, "{c}");
    // The same run twice is the same run.
    let (a, b) = (
        delivery_sim::run(&c.replay_scenario),
        delivery_sim::run(&c.replay_scenario),
    );
    assert_eq!(a.trace.hash_hex(), b.trace.hash_hex());
    assert_eq!(
        check_handler(|| ClaimFirst, &s, 1).map(|c| c.guarantee),
        Ok(Guarantee::ExactlyOnce)
    );
}

/// Never stops calling: the calls of one delivery are bounded, and the run ends.
#[derive(Clone)]
struct Spins;

impl Handler for Spins {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        loop {
            ctx.query_row("spin", "SELECT count(*) FROM stock", &[])?;
        }
    }
}

/// Swallows every error, the simulator's interruption included, and acks last.
#[derive(Clone)]
struct SwallowsErrors;

impl Handler for SwallowsErrors {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        let _ = ctx.begin();
        let _ = ctx.execute(
            "claim",
            "INSERT INTO processed_event VALUES (:event_id, 0)",
            &[],
        );
        let _ = record(ctx);
        let _ = ctx.commit();
        let _ = ctx.ack();
        Ok(())
    }
}

#[test]
fn a_looping_handler_and_one_that_swallows_errors_end_in_reported_outcomes() {
    let mut s = scenario();
    s.faults = Default::default();
    s.workload.events = 1;
    s.broker.max_deliveries = Some(3);
    s.protocol = Protocol::handler("spins", || Spins);
    let r = delivery_sim::run(&s);
    let text = delivery_sim::report::text::trace_text(delivery_sim::report::lang::Lang::En, &r);
    assert!(text.contains("256 calls for this delivery"), "{text}");
    assert_eq!(r.verdict.dead_lettered, 1, "{text}");
    // Swallowing the interruption changes nothing; without an inbox, the duplicate a crash
    // after the commit makes is found (the claim's unique violation is swallowed too, and
    // the reservation recorded again).
    let c = check_handler(|| SwallowsErrors, &scenario(), 1).expect_err("duplicates");
    assert_eq!(c.observed, Guarantee::AtLeastOnce, "{c}");
}

#[test]
fn a_commit_timeout_reaches_the_handler_as_an_unknown_outcome() {
    use delivery_sim::fault::CommitTimeoutSpec;
    for applied in [true, false] {
        let mut s = scenario();
        s.faults = Default::default();
        s.faults.commit_timeout = vec![CommitTimeoutSpec {
            nth: None,
            event: Some(0),
            delivery: Some(1),
            applied,
        }];
        // The inbox settles it either way: the redelivery's claim finds the row or not.
        assert_eq!(
            check_handler(|| ClaimFirst, &s, 1).map(|c| c.guarantee),
            Ok(Guarantee::ExactlyOnce),
            "applied: {applied}"
        );
        // The memory does not: the commit errored, so the order was not remembered.
        let r = delivery_sim::run(&{
            let mut s = s.clone();
            s.protocol = Protocol::handler("memory", RememberInMemory::default);
            s
        });
        let duplicated = r.verdict.duplicated;
        assert_eq!(duplicated, u64::from(applied), "applied: {applied}");
    }
}

/// Begins twice, commits twice: SQLite's own errors, not a crash of the simulator.
#[derive(Clone)]
struct Clumsy;

impl Handler for Clumsy {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        ctx.rollback()?; // Nothing to roll back: nothing happens.
        ctx.begin()?;
        let twice = ctx.begin();
        record(ctx)?;
        ctx.commit()?;
        let again = ctx.commit();
        match (twice, again) {
            (Err(HandlerError::Sql(a)), Err(HandlerError::Sql(b))) => {
                assert!(a.message.contains("within a transaction"), "{a}");
                assert!(b.message.contains("no transaction is active"), "{b}");
                ctx.ack()
            }
            other => Err(HandlerError::Other(format!(
                "expected two errors: {other:?}"
            ))),
        }
    }
}

#[test]
fn a_handler_that_misuses_transactions_gets_sqlites_errors() {
    let mut s = scenario();
    s.faults = Default::default();
    s.protocol = Protocol::handler("clumsy", || Clumsy);
    let r = delivery_sim::run(&s);
    let text = delivery_sim::report::text::trace_text(delivery_sim::report::lang::Lang::En, &r);
    assert!(
        text.contains("cannot commit - no transaction is active"),
        "{text}"
    );
    assert_eq!(r.verdict.exactly_once, 3, "{text}");
}

/// `ClaimFirst`, confirming each order by email after the commit: on a redelivery the
/// claim says "processed" and the handler acks, so whether it sends again decides the
/// email's guarantee. `declared: false` calls `external_effect` without declaring it.
#[derive(Clone)]
struct ConfirmByEmail {
    resend_on_duplicate: bool,
    declared: bool,
}

impl Handler for ConfirmByEmail {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        ctx.begin()?;
        let claim = "INSERT INTO processed_event VALUES (:event_id, :now)";
        match ctx.execute("claim", claim, &[]) {
            Err(HandlerError::Sql(e)) if e.is_unique_violation() => {
                ctx.rollback()?;
                if self.resend_on_duplicate {
                    ctx.external_effect()?;
                }
                return ctx.ack();
            }
            other => other?,
        };
        record(ctx)?;
        ctx.commit()?;
        ctx.external_effect()?;
        ctx.ack()
    }

    fn sends_external_effect(&self) -> bool {
        self.declared
    }
}

#[test]
fn a_handlers_external_effect_is_judged_at_the_email_boundary() {
    let mut s = scenario();
    s.workload.events = 2;
    s.store.custom.as_mut().unwrap().invariants.clear();
    let once = |resend_on_duplicate| {
        move || ConfirmByEmail {
            resend_on_duplicate,
            declared: true,
        }
    };
    // Not sent again: a crash between the commit and the email loses the email, while
    // the reservation is exactly-once.
    let lost = check_handler(once(false), &s, 1).expect_err("the lost email is found");
    assert_eq!(lost.observed, Guarantee::AtMostOnce, "{lost}");
    assert_eq!(lost.boundary, delivery_sim::Scope::Email, "{lost}");
    assert_eq!(
        lost.crash_arguments(),
        "--crash 'after:commit e0 d1'",
        "{lost}"
    );
    // Sent again: never lost, sometimes twice.
    let twice = check_handler(once(true), &s, 1).expect_err("the second email is found");
    assert_eq!(twice.observed, Guarantee::AtLeastOnce, "{twice}");
    s.expect = Some(delivery_sim::scenario::Expect {
        guarantee: Some(Guarantee::AtLeastOnce),
        ..Default::default()
    });
    assert_eq!(
        check_handler(once(true), &s, 2).map(|c| c.guarantee),
        Ok(Guarantee::AtLeastOnce)
    );
    // Sending without saying so would go unjudged: it stops the run instead.
    let mut undeclared = scenario();
    undeclared.protocol = Protocol::handler("quiet", || ConfirmByEmail {
        resend_on_duplicate: false,
        declared: false,
    });
    let panic = std::panic::catch_unwind(|| delivery_sim::run(&undeclared)).expect_err("refused");
    let message = match panic.downcast_ref::<&str>() {
        Some(m) => m.to_string(),
        None => panic.downcast_ref::<String>().cloned().unwrap_or_default(),
    };
    assert!(message.contains("sends_external_effect"), "{message}");
}

/// The proptest strategies throw fault plans at a handler's own crash points (those its
/// calls make, which `reached_boundaries` lists): the fix holds under every plan drawn,
/// and the bug is found by one.
#[test]
fn fault_plans_drawn_at_a_handlers_own_points_find_the_bug_and_spare_the_fix() {
    use delivery_sim::testing::{check_run, reached_boundaries, strategies};
    use proptest::test_runner::{TestCaseError, TestRunner};
    let mut s = scenario();
    s.workload.events = 2;
    s.broker.lease_ticks = Some(50);
    s.protocol = Protocol::handler("claim-first", || ClaimFirst);
    let points = reached_boundaries(&s);
    let names: Vec<String> = points.iter().map(|b| b.to_string()).collect();
    assert!(names.contains(&"after:claim".to_string()), "{names:?}");
    assert!(names.contains(&"before:commit".to_string()), "{names:?}");
    // Whether every plan drawn keeps the claim.
    let holds = |s: &Scenario| {
        // A fixed seed, and nothing persisted: the bug's failure is expected.
        let config = proptest::test_runner::Config {
            cases: 48,
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(15),
            ..Default::default()
        };
        TestRunner::new(config)
            .run(&strategies::fault_plan_at(points.clone(), 2), |plan| {
                let mut s = s.clone();
                s.faults = plan;
                check_run(
                    &s,
                    delivery_sim::Scope::LedgerPerEvent,
                    Guarantee::ExactlyOnce,
                )
                .map(|_| ())
                .map_err(|c| TestCaseError::fail(c.to_string()))
            })
            .is_ok()
    };
    assert!(holds(&s), "the fix holds under every plan");
    s.protocol = Protocol::handler("remember-in-memory", RememberInMemory::default);
    assert!(
        !holds(&s),
        "a plan with a crash after the commit duplicates"
    );
}

/// Step `record`: the order's reservation row, the handlers' shared effect.
fn record(ctx: &mut Context<'_>) -> Result<usize, HandlerError> {
    let sql = "INSERT INTO reservation VALUES (:event_id, :sku, :qty)";
    ctx.execute("record", sql, &[])
}

/// `s` with one event, which the broker delivers twice, and no other fault.
pub(crate) fn one_event_copied(mut s: Scenario) -> Scenario {
    s.workload.events = 1;
    s.faults = Default::default();
    s.faults.duplicate_delivery = vec![delivery_sim::fault::DeliveryFault {
        event: Some(0),
        delivery: None,
        times: 1,
    }];
    s
}

/// The inbox done right, in Rust: claim and payment in one transaction, ack after the
/// commit; an error it does not handle goes to the framework's error policy.
#[derive(Clone)]
struct InboxPayment;

impl Handler for InboxPayment {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        ctx.begin()?;
        match ctx.execute("claim", "INSERT INTO inbox VALUES (:event_id, :now)", &[]) {
            Err(HandlerError::Sql(e)) if e.is_unique_violation() => {
                ctx.rollback()?;
                return ctx.ack();
            }
            other => other.map(drop)?,
        }
        let pay = "INSERT INTO payment VALUES (:event_id, :account, :amount)";
        ctx.execute("pay", pay, &[])?;
        ctx.commit()?;
        ctx.ack()
    }
}

#[test]
fn a_handler_s_framework_follows_the_scenario_s_error_policy() {
    let text = include_str!("../../scenarios/policy-ack-on-exception-loses.json");
    let s = Scenario::from_json(text, "policy").expect("valid");
    // `on_error: ack`: the failed payment is rolled back and acked; the event is lost, and
    // the report names the failure the policy gave up on, as for the SQL protocol.
    let mut lossy = s.clone();
    lossy.expect = None;
    let c = check_handler(|| InboxPayment, &lossy, 1).expect_err("the event is lost");
    assert_eq!(c.observed, Guarantee::AtMostOnce, "{c}");
    assert_eq!(c.crash_arguments(), "", "no crash needed: {c}");
    let r = delivery_sim::run(&c.replay_scenario);
    let lost = &r.verdict.events[1];
    assert_eq!(lost.gave_up.len(), 1, "{lost:?}");
    assert_eq!(lost.gave_up[0].step.name(), "pay");
    // Retrying once absorbs the one failure: exactly-once at every crash point, and the
    // retry's calls number on (`pay#2`).
    let mut retried = lossy.clone();
    retried.protocol.on_error.retry = Some(delivery_sim::model::Retry {
        times: 1,
        backoff_ticks: 0,
    });
    assert_eq!(
        check_handler(|| InboxPayment, &retried, 1).map(|c| c.guarantee),
        Ok(Guarantee::ExactlyOnce)
    );
    let mut once = retried.clone();
    once.protocol = Protocol::handler("inbox-payment", || InboxPayment);
    once.protocol.on_error = retried.protocol.on_error.clone();
    let trace = delivery_sim::report::text::trace_text(
        delivery_sim::report::lang::Lang::En,
        &delivery_sim::run(&once),
    );
    assert!(trace.contains("pay#2"), "{trace}");
}

/// Keys its dedup by the record's place on the log, as a Kafka consumer that stores its
/// offsets does.
#[derive(Clone)]
struct OffsetKeyed;

impl Handler for OffsetKeyed {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        let (Some(partition), Some(offset)) = (ctx.partition(), ctx.offset()) else {
            return Err(HandlerError::Other("not on a log".into()));
        };
        assert_eq!(
            (ctx.topic(), ctx.group()),
            (Some("events"), Some("delivery-sim"))
        );
        let key = delivery_sim::handler::Value::Text(format!("{partition}-{offset}"));
        ctx.begin()?;
        let claim = "INSERT INTO processed_event VALUES (:key, 0)";
        match ctx.execute("claim", claim, &[("key", key)]) {
            Err(HandlerError::Sql(e)) if e.is_unique_violation() => {
                ctx.rollback()?;
                return ctx.ack();
            }
            other => other.map(drop)?,
        }
        let record = "INSERT INTO reservation VALUES (:event_id, :sku, :qty)";
        ctx.execute("record", record, &[])?;
        ctx.commit()?;
        ctx.ack()
    }
}

#[test]
fn a_handler_reads_the_record_s_place_on_a_log() {
    let mut s = scenario();
    s.faults = Default::default();
    // On a queue there is no offset: the handler says so, and nothing is processed.
    let r = delivery_sim::run(&{
        let mut q = s.clone();
        q.protocol = Protocol::handler("offsets", || OffsetKeyed);
        q
    });
    assert_ne!(r.verdict.guarantee, Guarantee::ExactlyOnce);
    s.broker.log = Some(Default::default());
    assert_eq!(
        check_handler(|| OffsetKeyed, &s, 1).map(|c| c.guarantee),
        Ok(Guarantee::ExactlyOnce)
    );
}

/// A handler calls no named service: a scenario whose effect is the calls to one would
/// judge every event lost, so `check_handler` refuses it, saying why.
#[test]
fn a_handler_is_not_checked_against_an_external_call_effect() {
    let text = include_str!("../../scenarios/external-call-inside-transaction.json");
    let s = Scenario::from_json(text, "external.json").unwrap();
    let panic =
        std::panic::catch_unwind(|| check_handler(|| ClaimFirst, &s, 1)).expect_err("refused");
    let message = (panic.downcast_ref::<&str>().map(|m| m.to_string()))
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(message.contains("calls no named service"), "{message}");
}
