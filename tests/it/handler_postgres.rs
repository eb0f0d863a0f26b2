//! Rust handlers on PostgreSQL (feature `postgres`): the example's handlers judged as on
//! SQLite, and what PostgreSQL does differently to a handler written against SQLite — a
//! failed statement aborts the whole transaction, so a handler that catches a unique
//! violation and commits gets its COMMIT refused.

#![cfg(feature = "postgres")]

use super::handler::my_handler::{self, ClaimFirst, RememberInMemory};
use super::handler::one_event_copied;
use delivery_sim::handler::{Context, Handler, HandlerError};
use delivery_sim::model::Engine;
use delivery_sim::testing::check_handler;
use delivery_sim::{Guarantee, Scenario};

fn on_postgres() -> Scenario {
    let mut s = my_handler::scenario();
    s.store.engine = Engine::Postgres;
    s
}

#[test]
fn the_example_handlers_are_judged_on_postgres_as_on_sqlite() {
    let s = on_postgres();
    let c = check_handler(RememberInMemory::default, &s, 1).expect_err("the bug is found");
    assert_eq!(c.observed, Guarantee::AtLeastOnce, "{c}");
    assert_eq!(c.crash_arguments(), "--crash 'after:commit e0 d1'", "{c}");
    let again = delivery_sim::run(&c.replay_scenario);
    assert_eq!(again.trace.hash_hex(), c.trace_hash);
    assert_eq!(
        check_handler(|| ClaimFirst, &s, 1).map(|c| c.guarantee),
        Ok(Guarantee::ExactlyOnce)
    );
}

/// Written against SQLite, where a failed statement leaves its transaction open and
/// usable: a copy's claim fails on the key, and the handler commits (nothing) and acks.
#[derive(Clone)]
struct CommitsAfterTheDuplicate;

impl Handler for CommitsAfterTheDuplicate {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        ctx.begin()?;
        let claim = "INSERT INTO processed_event VALUES (:event_id, :now)";
        match ctx.execute("claim", claim, &[]) {
            Err(HandlerError::Sql(e)) if e.is_unique_violation() => {
                ctx.commit()?;
                return ctx.ack();
            }
            other => other?,
        };
        let take = "UPDATE stock SET qty = qty - :qty WHERE sku = :sku";
        ctx.execute("take_stock", take, &[])?;
        let record = "INSERT INTO reservation VALUES (:event_id, :sku, :qty)";
        ctx.execute("record", record, &[])?;
        let (n, total) = ctx
            .query_row("count", "SELECT count(*), sum(qty) FROM reservation", &[])?
            .map(|r| (r[0].as_i64(), r[1].clone()))
            .expect("an aggregate has a row");
        assert!(n.is_some(), "count(*) reads as an integer: {n:?}");
        assert!(
            matches!(total, delivery_sim::handler::Value::Integer(_)),
            "{total:?}"
        );
        ctx.commit()?;
        ctx.ack()
    }
}

#[test]
fn a_commit_after_a_failed_statement_is_refused_on_postgres_not_on_sqlite() {
    let mut sqlite = one_event_copied(my_handler::scenario());
    // The copy is refused every time: three deliveries, then the dead-letter queue.
    sqlite.broker.max_deliveries = Some(3);
    let mut postgres = sqlite.clone();
    postgres.store.engine = Engine::Postgres;
    assert_eq!(
        check_handler(|| CommitsAfterTheDuplicate, &sqlite, 1).map(|c| c.guarantee),
        Ok(Guarantee::ExactlyOnce)
    );
    let c = check_handler(|| CommitsAfterTheDuplicate, &postgres, 1)
        .expect_err("PostgreSQL refuses the commit");
    // Its effect committed once, by the first delivery; the copy is refused at every
    // delivery and never acked.
    assert_eq!(
        c.broken_events,
        ["e0 once but dead-lettered, never acked"],
        "{c}"
    );
    assert!(c.crashes.is_empty(), "no crash is needed: {c}");
    for said in [
        "PostgreSQL aborted the transaction",
        "PostgreSQL rolled it back at COMMIT",
    ] {
        assert!(c.trace.contains(said), "{said}: {}", c.trace);
    }
}

#[test]
fn two_consumers_claiming_the_same_event_wait_for_each_others_key() {
    let mut s = one_event_copied(on_postgres());
    s.consumers = 2;
    assert_eq!(
        check_handler(|| ClaimFirst, &s, 1).map(|c| c.guarantee),
        Ok(Guarantee::ExactlyOnce)
    );
    // Round robin: the copy's claim waits for the first claim's uncommitted key, then
    // fails on it once the first commits, and the copy is rolled back and acked.
    s.protocol = delivery_sim::Protocol::handler("claim-first", || ClaimFirst);
    let r = delivery_sim::run(&s);
    let text = delivery_sim::report::text::trace_text(delivery_sim::report::lang::Lang::En, &r);
    let waits = text.find("claim            e0 d2          waits for a lock");
    let fails = text.find("claim            e0 d2          failed: duplicate key value");
    assert!(waits.is_some() && fails > waits, "{text}");
    assert_eq!(r.verdict.guarantee, Guarantee::ExactlyOnce, "{text}");
}
