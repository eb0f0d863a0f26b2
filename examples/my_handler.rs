//! Your consumer as Rust code, checked by the simulator: `cargo run --example my_handler`.
//!
//! The scenario file gives everything but the consumer: the schema, the workload, the
//! broker, the faults and `check` (how the business counts an order's reservations). The
//! consumer is a [`Handler`]: every call it makes through its context is a step, and the
//! simulator crashes the process before and after each one.
//!
//! The first handler remembers the orders it processed in a set in memory: a broker's
//! duplicate is caught, but a crash between the commit and the ack takes the set with it,
//! the redelivered order is reserved twice (at-least-once). The fix is the seeds' inbox:
//! claim the order in `processed_event` in the same transaction as the reservation, ack
//! after the commit; the claim's unique violation says "already processed".

use delivery_sim::handler::{Context, Handler, HandlerError};
use delivery_sim::testing::check_handler;
use delivery_sim::Scenario;
use std::collections::BTreeSet;

/// The scenario of `scenarios/sql-reserve-stock-inbox.json`: stock for two SKUs, three
/// orders, and a check that counts each order's reservations.
pub fn scenario() -> Scenario {
    let text = include_str!("../scenarios/sql-reserve-stock-inbox.json");
    Scenario::from_json(text, "scenarios/sql-reserve-stock-inbox.json").expect("a valid scenario")
}

/// The bug: the memory of processed orders is volatile, a crash loses it.
#[derive(Clone, Default)]
pub struct RememberInMemory {
    seen: BTreeSet<String>,
}

impl Handler for RememberInMemory {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        if self.seen.contains(ctx.event_id()) {
            return ctx.ack();
        }
        ctx.begin()?;
        reserve(ctx)?;
        ctx.commit()?;
        self.seen.insert(ctx.event_id().to_string());
        ctx.ack()
    }
}

/// The fix: the claim is a row, written in the reservation's own transaction.
#[derive(Clone, Default)]
pub struct ClaimFirst;

impl Handler for ClaimFirst {
    fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
        ctx.begin()?;
        let claim = "INSERT INTO processed_event VALUES (:event_id, :now)";
        match ctx.execute("claim", claim, &[]) {
            // Processed before: this delivery is a copy. Nothing of it may stay.
            Err(HandlerError::Sql(e)) if e.is_unique_violation() => {
                ctx.rollback()?;
                return ctx.ack();
            }
            other => other?,
        };
        reserve(ctx)?;
        ctx.commit()?;
        ctx.ack()
    }
}

/// The order's effect: take the quantity from the stock, record the reservation.
fn reserve(ctx: &mut Context<'_>) -> Result<(), HandlerError> {
    let take = "UPDATE stock SET qty = qty - :qty WHERE sku = :sku";
    ctx.execute("take_stock", take, &[])?;
    let record = "INSERT INTO reservation VALUES (:event_id, :sku, :qty)";
    ctx.execute("record", record, &[])?;
    Ok(())
}

#[allow(dead_code)] // Also compiled into the integration tests, which have their own main.
fn main() {
    let scenario = scenario();
    match check_handler(RememberInMemory::default, &scenario, 1) {
        Ok(checked) => println!("RememberInMemory: {checked} (the bug was not found)"),
        Err(c) => {
            println!(
                "RememberInMemory: claimed {}, observed {}",
                c.claimed, c.observed
            );
            let crashes: Vec<String> = c.crashes.iter().map(|p| p.to_string()).collect();
            println!("  crashes   {}", crashes.join(", "));
            println!("  events    {}", c.broken_events.join(", "));
            println!("  verdict   {}", c.verdicts.join("; "));
        }
    }
    match check_handler(|| ClaimFirst, &scenario, 2) {
        Ok(checked) => println!("ClaimFirst: {checked}, every schedule of up to 2 crashes"),
        Err(c) => println!("ClaimFirst breaks the claim:\n{c}"),
    }
}
