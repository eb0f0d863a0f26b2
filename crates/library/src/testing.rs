//! Building blocks for your own tests: check that a protocol — a built-in one or yours —
//! gives the guarantee you claim, at every crash point or under random fault plans, and get
//! a minimal counterexample when it does not.
//!
//! Two ways in:
//!
//! - **Exhaustive**: [`check_guarantee`] explores every crash schedule up to a depth and
//!   returns what the runs showed ([`Checked`]) or the first run that breaks the claim, as
//!   a [`Counterexample`]; [`check_handler`] does the same for a Rust handler.
//! - **Property-based** (feature `proptest`, on by default): [`strategies`] generates fault
//!   plans for a protocol; [`check_run`] judges one run. Inside `proptest!`, a failing case
//!   is shrunk by proptest (fewer crashes, fewer failures, fewer events) and reported with
//!   the crash points the run really hit.
//!
//! ```
//! use delivery_sim::testing::check_guarantee;
//! use delivery_sim::{Guarantee, Protocol, Scenario, Scope, Step};
//!
//! // Ack first, then do the work: a crash after the ack loses the event.
//! let mine = Protocol::new(
//!     "ack-early",
//!     "acks as soon as it receives",
//!     vec![Step::Receive, Step::Ack, Step::Begin, Step::ApplyEffect, Step::Commit],
//! )
//! .unwrap();
//! let scenario = Scenario::new(mine).with_events(2).with_seed(7);
//! let counterexample = check_guarantee(&scenario, 1, Scope::LedgerPerEvent, Guarantee::ExactlyOnce)
//!     .unwrap_err();
//! assert_eq!(counterexample.observed, Guarantee::AtMostOnce);
//! assert_eq!(counterexample.crashes.len(), 1);
//! assert_eq!(counterexample.crashes[0].to_string(), "after:ack e0 d1");
//!
//! // The same check on the inbox protocol holds at every single crash point.
//! let inbox = Scenario::new(Protocol::built_in("inbox").unwrap()).with_events(2);
//! assert!(check_guarantee(&inbox, 1, Scope::LedgerPerEvent, Guarantee::ExactlyOnce).is_ok());
//! ```

use crate::explore::shrink::{self, ShrinkOptions};
use crate::explore::{self, ExploreOptions};
use crate::model::{BoundaryPoint, Guarantee, Scope};
use crate::scenario::Scenario;
use crate::world::{self, RunResult};
use std::fmt;

/// A run that breaks a claimed guarantee, with everything needed to see why and to replay
/// it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    /// The scenario's name and its protocol's steps, for the report.
    pub scenario: String,
    pub protocol: String,
    pub seed: u64,
    pub events: usize,
    /// The crash points the run hit, in order (planned or random alike).
    pub crashes: Vec<BoundaryPoint>,
    /// The other faults of the plan, one phrase each (`apply_effect fails for e1 ×2`).
    pub other_faults: Vec<String>,
    pub boundary: Scope,
    pub claimed: Guarantee,
    pub observed: Guarantee,
    /// `ledger per event: at-most-once (1 once, 1 lost)` and the like, per boundary.
    pub verdicts: Vec<String>,
    /// The events that did not end once, e.g. `e0 lost`.
    pub broken_events: Vec<String>,
    pub trace_hash: String,
    /// The run's trace, one line per entry, to read what happened.
    pub trace: String,
    /// `delivery-sim replay TOKEN` runs exactly this run from the command line, and
    /// `replay TOKEN --scenario-out FILE` turns it into a regression scenario.
    pub token: String,
    /// The size of the failing run this one was shrunk from (`20 events, 1 consumer, 3
    /// crashes, …`), when shrinking made it smaller.
    pub shrunk_from: Option<String>,
    /// The failing run's scenario, its crashes planned: `delivery_sim::run(&scenario)`
    /// runs it again, a Rust handler's too (whose `token` is empty: the command line does
    /// not have your code).
    pub replay_scenario: Box<Scenario>,
}

impl Counterexample {
    fn of(scenario: &Scenario, r: &RunResult, boundary: Scope, claimed: Guarantee) -> Self {
        let v = &r.verdict;
        let observed = v
            .boundaries
            .iter()
            .find(|b| b.boundary == boundary)
            .map_or(v.guarantee, |b| b.guarantee);
        let handler = scenario.protocol.handler.is_some();
        Counterexample {
            scenario: scenario.name.clone(),
            protocol: if handler {
                format!("the Rust handler `{}`", scenario.protocol.name)
            } else {
                scenario.protocol.arrow_list()
            },
            seed: scenario.seed,
            events: scenario.workload.events,
            crashes: r.crashes.iter().map(|c| c.point).collect(),
            other_faults: other_faults(&scenario.faults),
            boundary,
            claimed,
            observed,
            verdicts: v.boundaries.iter().map(|b| b.describe()).collect(),
            // What each event broke: its outcome, or (once, but never acked: exactly-once
            // promises every event acked) that it was not acked, and why.
            broken_events: (v.events.iter())
                .filter_map(|e| match (e.outcome, e.acked, e.dead_lettered) {
                    (crate::check::Outcome::Once, true, _) => None,
                    (crate::check::Outcome::Once, false, true) => {
                        Some(format!("e{} once but dead-lettered, never acked", e.event))
                    }
                    (crate::check::Outcome::Once, false, false) => {
                        Some(format!("e{} once but never acked", e.event))
                    }
                    (outcome, _, _) => Some(format!("e{} {}", e.event, outcome.name())),
                })
                .collect(),
            trace_hash: r.trace.hash_hex(),
            trace: crate::report::text::trace_text(crate::report::lang::Lang::En, r),
            // The command line cannot run a Rust handler: `replay_scenario` replays it.
            token: if handler {
                String::new()
            } else {
                crate::scenario::token::encode(scenario, &[])
            },
            shrunk_from: None,
            replay_scenario: Box::new(scenario.clone()),
        }
    }

    /// The counterexample for the failing run of `scenario`, shrunk first to the smallest
    /// run that still breaks the claim (fewest events, consumers, crashes, other faults and
    /// steps, in that order; see [`crate::explore::shrink`]).
    fn shrunk(scenario: &Scenario, boundary: Scope, claimed: Guarantee) -> Self {
        let breaks = |r: &RunResult| !keeps(r, boundary, claimed);
        let shrunk = shrink::shrink_while(scenario, &[], ShrinkOptions::default(), &breaks)
            .expect("called on a failing run");
        let mut c = Counterexample::of(&shrunk.scenario, &shrunk.result, boundary, claimed);
        if !c.token.is_empty() {
            c.token = shrunk.token();
        }
        if shrunk.size != shrunk.original {
            c.shrunk_from = Some(shrunk.original.describe());
        }
        c
    }

    /// The `--crash` arguments that replay this run with `delivery-sim run`.
    pub fn crash_arguments(&self) -> String {
        self.crashes
            .iter()
            .map(|p| format!("--crash '{p}'"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl fmt::Display for Counterexample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let crashes: Vec<String> = self.crashes.iter().map(|p| p.to_string()).collect();
        writeln!(
            f,
            "claimed {} for {}, observed {}",
            self.claimed,
            self.boundary.name(),
            self.observed
        )?;
        writeln!(f, "scenario  {} ({})", self.scenario, self.protocol)?;
        writeln!(f, "seed      {}, {} event(s)", self.seed, self.events)?;
        writeln!(
            f,
            "crashes   {}",
            if crashes.is_empty() {
                "none".to_string()
            } else {
                crashes.join(", ")
            }
        )?;
        if !self.other_faults.is_empty() {
            writeln!(f, "faults    {}", self.other_faults.join(", "))?;
        }
        writeln!(f, "events    {}", self.broken_events.join(", "))?;
        for v in &self.verdicts {
            writeln!(f, "verdict   {v}")?;
        }
        if let Some(from) = &self.shrunk_from {
            writeln!(f, "shrunk    from {from}")?;
        }
        if self.token.is_empty() {
            writeln!(
                f,
                "replay    delivery_sim::run(&counterexample.replay_scenario)"
            )?;
        } else {
            writeln!(f, "replay    delivery-sim replay {}", self.token)?;
        }
        writeln!(f, "trace     hash {}", self.trace_hash)?;
        write!(f, "{}", self.trace)
    }
}

/// The faults of a plan other than crashes, in words.
fn other_faults(plan: &crate::fault::FaultPlan) -> Vec<String> {
    let which = |event: Option<usize>| event.map_or("any event".to_string(), |e| format!("e{e}"));
    let mut out = Vec::new();
    for f in &plan.fail {
        let how_long = match f.until_tick {
            Some(t) => format!("until t={t}"),
            None => format!("×{}", f.times),
        };
        out.push(format!(
            "{} fails for {} {how_long}",
            f.step,
            which(f.event)
        ));
    }
    for f in &plan.lose_ack {
        out.push(format!("ack of {} lost ×{}", which(f.event), f.times));
    }
    for f in &plan.duplicate_delivery {
        out.push(format!("broker duplicates {} ×{}", which(f.event), f.times));
    }
    for f in &plan.publish_timeout {
        out.push(format!(
            "publication of {} times out ×{}",
            which(f.event),
            f.times
        ));
    }
    for f in &plan.commit_timeout {
        out.push(format!(
            "commit of {} times out ({})",
            which(f.event),
            if f.applied {
                "it did commit"
            } else {
                "it did not"
            }
        ));
    }
    for s in &plan.stall {
        out.push(format!("stall at {} for {} ticks", s.at, s.ticks));
    }
    out
}

/// Whether `r` keeps `claimed` at `boundary` (a boundary the run does not have counts as
/// kept: there is nothing there to break). Liveness counts too: a run that cannot finish
/// breaks any claim, and an event never acked breaks exactly-once, which promises "finally
/// once".
fn keeps(r: &RunResult, boundary: Scope, claimed: Guarantee) -> bool {
    let v = &r.verdict;
    let Some(b) = v.boundaries.iter().find(|b| b.boundary == boundary) else {
        return true;
    };
    let at_least_as_strong = match claimed {
        Guarantee::ExactlyOnce => b.guarantee == Guarantee::ExactlyOnce,
        Guarantee::AtLeastOnce => b.lost + b.stuck + b.wrong_effect == 0,
        Guarantee::AtMostOnce => b.duplicated + b.ghost == 0,
        Guarantee::None => true,
    };
    // A run that cannot finish fails whatever is claimed (the one definition, in
    // `check::failure`); exactly-once also promises every event acked.
    let live = !r.failure().fails_liveness() && (claimed != Guarantee::ExactlyOnce || v.all_acked);
    at_least_as_strong && live
}

/// Runs `scenario` once, with its own fault plan, and checks `claimed` at `boundary`. A
/// failing run is shrunk before it is reported.
pub fn check_run(
    scenario: &Scenario,
    boundary: Scope,
    claimed: Guarantee,
) -> Result<RunResult, Box<Counterexample>> {
    let r = world::run(scenario);
    if keeps(&r, boundary, claimed) {
        Ok(r)
    } else {
        Err(Box::new(Counterexample::of(
            scenario, &r, boundary, claimed,
        )))
    }
}

/// Explores every crash schedule of `scenario` up to `depth` crashes (the scenario's own
/// planned and random crashes are replaced; its other faults stay) and checks `claimed` at
/// `boundary` in every run. Returns the runs and the weakest guarantee they showed there
/// ([`Checked`]), or the first breaking run in schedule order (fewest crashes first, so the
/// counterexample is as short as any).
pub fn check_guarantee(
    scenario: &Scenario,
    depth: usize,
    boundary: Scope,
    claimed: Guarantee,
) -> Result<Checked, Box<Counterexample>> {
    explore_claim(scenario, depth, &[boundary], claimed).map(|x| checked(&x, &[boundary]))
}

/// What an exhaustive check found when the claim held: the runs it took (each crash
/// schedule of the depth, pruned as `explore` prunes) and the weakest guarantee they showed
/// at the boundaries checked, which may be stronger than the claim. [`check_guarantee`]
/// and [`check_handler`] return it; the error of every `check_*` function is the shrunk
/// [`Counterexample`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    pub runs: u64,
    pub guarantee: Guarantee,
}

/// `exactly-once over 109 runs`.
impl fmt::Display for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} over {} runs", self.guarantee, self.runs)
    }
}

/// The weakest guarantee `x`'s runs showed at `boundaries`.
fn checked(x: &explore::Exploration, boundaries: &[Scope]) -> Checked {
    let scopes = x.summary.scopes();
    let at = |b: Scope| match b {
        Scope::LedgerPerEvent => Some(x.summary.guarantee),
        b => (scopes.iter())
            .find(|(s, _)| *s == b)
            .map(|(_, s)| s.guarantee),
    };
    Checked {
        runs: x.summary.runs,
        guarantee: Guarantee::weakest(boundaries.iter().filter_map(|b| at(*b))),
    }
}

/// The exploration of [`check_guarantee`], or the shrunk counterexample.
fn explore_claim(
    scenario: &Scenario,
    depth: usize,
    boundaries: &[Scope],
    claimed: Guarantee,
) -> Result<explore::Exploration, Box<Counterexample>> {
    // The first boundary a run breaks the claim at, if any.
    let broken = |r: &RunResult| boundaries.iter().copied().find(|b| !keeps(r, *b, claimed));
    assert!(
        (1..=explore::MAX_DEPTH).contains(&depth),
        "depth 1 to {}",
        explore::MAX_DEPTH
    );
    // The crash-free run first: when it breaks the claim (a livelock to the step limit,
    // say), that is the counterexample, and exploring the hundreds of thousands of points
    // such a run reaches would only take hours to say so again.
    let mut crash_free = scenario.clone();
    crash_free.faults.crash.clear();
    crash_free.faults.random_crash = None;
    if let Some(boundary) = broken(&world::run(&crash_free)) {
        return Err(Box::new(Counterexample::shrunk(
            &crash_free,
            boundary,
            claimed,
        )));
    }
    let x = explore::explore(
        scenario,
        ExploreOptions {
            depth,
            ..ExploreOptions::default()
        },
    );
    let first = x
        .runs
        .iter()
        .find_map(|r| broken(&r.result).map(|b| (r, b)));
    match first {
        None => Ok(x),
        Some((run, boundary)) => {
            // The first breaking schedule has the fewest crashes; shrinking can still take
            // events and steps away.
            let mut s = scenario.clone();
            s.faults.crash = run
                .crashes
                .iter()
                .map(|p| crate::fault::CrashSpec::exactly(*p))
                .collect();
            s.faults.random_crash = None;
            Err(Box::new(Counterexample::shrunk(&s, boundary, claimed)))
        }
    }
}

/// Checks a Rust [`Handler`](crate::handler::Handler): `scenario` (its own schema, its
/// `check`, workload, broker and faults; its protocol is replaced by the handler `make`
/// builds, under the protocol's name) is explored at every crash schedule up to `depth`
/// crashes, every schedule run (a handler's state is opaque, so none is taken as equivalent
/// to another). The claim is the scenario's `expect.guarantee`, exactly-once when it has
/// none, judged per event by `check.effects_per_event` with progress included, and for a
/// handler that sends an external effect ([`Handler::sends_external_effect`]) at the email
/// boundary too (one per event whose effect committed). The framework around the handler
/// follows the scenario's error policy (`protocol.on_error`: redeliver, ack, dead-letter,
/// retry), as a team's framework would. Returns what [`check_guarantee`] returns: the runs
/// and the weakest guarantee they showed ([`Checked`]), or the first run that breaks the
/// claim, shrunk.
///
/// A handler that acks before it records loses an event at one crash:
///
/// ```
/// use delivery_sim::handler::{Context, Handler, HandlerError};
/// use delivery_sim::testing::check_handler;
/// use delivery_sim::{Guarantee, Scenario};
///
/// // Everything but the consumer: the schema, the workload and how effects are counted.
/// let scenario = Scenario::from_json(r#"{
///     "name": "emails",
///     "store": { "schema": ["CREATE TABLE sent (event_id TEXT NOT NULL)"] },
///     "workload": { "events": 2 },
///     "protocol": { "name": "send", "steps": ["receive", { "name": "send",
///         "sql": "INSERT INTO sent VALUES (:event_id)" }, "ack"] },
///     "check": { "effects_per_event": "SELECT count(*) FROM sent WHERE event_id = :event_id" }
/// }"#, "doc").unwrap();
///
/// // Acks first, then records: a crash between the two loses the event.
/// #[derive(Clone)]
/// struct AckFirst;
///
/// impl Handler for AckFirst {
///     fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
///         ctx.ack()?;
///         ctx.execute("send", "INSERT INTO sent VALUES (:event_id)", &[])?;
///         Ok(())
///     }
/// }
///
/// let lost = check_handler(|| AckFirst, &scenario, 1).unwrap_err();
/// assert_eq!(lost.observed, Guarantee::AtMostOnce);
/// assert_eq!(lost.crash_arguments(), "--crash 'after:ack e0 d1'");
/// ```
///
/// # Panics
/// When `scenario` has no schema of its own (`store.schema`), has named databases
/// (`store.databases`) or an external call as its effect (`check.effect`), or `depth` is
/// not 1 to
/// [`explore::MAX_DEPTH`].
///
/// [`Handler::sends_external_effect`]: crate::handler::Handler::sends_external_effect
pub fn check_handler<H: crate::handler::Handler>(
    make: impl Fn() -> H + Send + Sync + std::panic::RefUnwindSafe + 'static,
    scenario: &Scenario,
    depth: usize,
) -> Result<Checked, Box<Counterexample>> {
    assert!(
        scenario.store.custom.is_some(),
        "a Rust handler runs on a scenario's own schema: give the scenario `store.schema` \
         and `check.effects_per_event`"
    );
    assert!(
        scenario
            .store
            .custom
            .as_ref()
            .is_some_and(|c| c.databases.is_empty()),
        "a Rust handler runs on the main database only: `store.databases` is for protocols \
         written as SQL steps (their `db`)"
    );
    assert!(
        (scenario.store.custom.as_ref()).is_some_and(|c| c.effect_call.is_none()),
        "a Rust handler calls no named service (it sends `ctx.external_effect()`, judged at \
         the email boundary): a scenario whose `check.effect` is an external call is for \
         protocols written as steps"
    );
    let policy = &scenario.protocol.on_error;
    assert!(
        policy.steps.is_empty(),
        "a Rust handler compensates in its own code: its error policy (the scenario's \
         `protocol.on_error`) may retry and say what ends the delivery, not add SQL steps"
    );
    let mut s = scenario.clone();
    s.protocol = crate::Protocol::handler(scenario.protocol.name.clone(), make);
    // The framework around the handler follows the scenario's error policy.
    s.protocol.on_error = policy.clone();
    let claimed = scenario
        .expect
        .as_ref()
        .and_then(|e| e.guarantee)
        .unwrap_or(Guarantee::ExactlyOnce);
    // A handler that sends an external effect is judged at the email boundary too.
    let boundaries: &[Scope] = match s.protocol.has(crate::model::Step::ExternalEffect) {
        true => &[Scope::LedgerPerEvent, Scope::Email],
        false => &[Scope::LedgerPerEvent],
    };
    explore_claim(&s, depth, boundaries, claimed).map(|x| checked(&x, boundaries))
}

/// [`check_guarantee`], panicking with the counterexample: for plain `#[test]`s.
#[track_caller]
pub fn assert_guarantee(scenario: &Scenario, depth: usize, boundary: Scope, claimed: Guarantee) {
    if let Err(c) = check_guarantee(scenario, depth, boundary, claimed) {
        panic!("{c}");
    }
}

/// The step boundaries `scenario`'s crash-free run reaches, each once, in the order first
/// reached: for a Rust handler, the crash points its calls make (`before:claim`,
/// `after:commit`), which its protocol's steps (`receive`, `ack`) do not list. The fault
/// plans of [`strategies::fault_plan_at`] crash and fail there.
pub fn reached_boundaries(scenario: &Scenario) -> Vec<crate::model::Boundary> {
    let mut crash_free = scenario.clone();
    crash_free.faults = crate::fault::FaultPlan::default();
    let mut out = Vec::new();
    for p in world::run(&crash_free).reached {
        if !out.contains(&p.boundary) {
            out.push(p.boundary);
        }
    }
    out
}

/// Proptest strategies for fault plans, so that a `proptest!` block can throw random crashes
/// and failures at any protocol. They shrink towards fewer faults and earlier events.
#[cfg(feature = "proptest")]
pub mod strategies {
    use crate::fault::{CrashSpec, DeliveryFault, FailSpec, FaultPlan, RandomCrash};
    use crate::model::{Boundary, Protocol, Step};
    use proptest::prelude::*;

    /// Planned crashes at `protocol`'s step boundaries, for events below `events`: up to
    /// `max_crashes` of them, each optionally pinned to an event and a delivery attempt.
    pub fn crashes(
        protocol: &Protocol,
        events: usize,
        max_crashes: usize,
    ) -> impl Strategy<Value = Vec<CrashSpec>> {
        crashes_at(Boundary::all_of(&protocol.steps), events, max_crashes)
    }

    /// [`crashes`] at the given boundaries: for a Rust handler, those its calls make
    /// ([`super::reached_boundaries`]), which its protocol's steps do not list.
    pub fn crashes_at(
        boundaries: Vec<Boundary>,
        events: usize,
        max_crashes: usize,
    ) -> impl Strategy<Value = Vec<CrashSpec>> {
        assert!(events > 0, "a workload has events");
        assert!(!boundaries.is_empty(), "a protocol has boundaries");
        let crash = (
            proptest::sample::select(boundaries),
            proptest::option::of(0..events),
            proptest::option::of(1u32..=3),
        )
            .prop_map(|(at, event, delivery)| CrashSpec {
                at,
                event,
                copy: None,
                delivery,
            });
        proptest::collection::vec(crash, 0..=max_crashes)
    }

    /// A whole fault plan for `protocol` over `events` events: planned crashes, random
    /// crashes (up to 30% per step, at most 6), failing steps, lost acks and the broker's
    /// own duplicates. With lost acks in the plan, give the broker a lease
    /// (`broker.lease_ticks`), or a delivery whose ack was lost stays in flight forever.
    ///
    /// ```
    /// use delivery_sim::testing::{check_run, strategies};
    /// use delivery_sim::{Guarantee, Protocol, Scenario, Scope};
    /// use proptest::test_runner::{Config, TestCaseError, TestRunner};
    ///
    /// let inbox = Protocol::built_in("inbox").unwrap();
    /// let mut runner = TestRunner::new(Config { cases: 32, ..Config::default() });
    /// let result = runner.run(&strategies::fault_plan(&inbox, 2), |plan| {
    ///     let mut s = Scenario::new(inbox.clone()).with_events(2).with_faults(plan);
    ///     s.broker.lease_ticks = Some(50);
    ///     check_run(&s, Scope::LedgerPerEvent, Guarantee::ExactlyOnce)
    ///         .map(|_| ())
    ///         .map_err(|c| TestCaseError::fail(c.to_string()))
    /// });
    /// assert!(result.is_ok(), "the inbox holds under any plan: {result:?}");
    /// ```
    pub fn fault_plan(protocol: &Protocol, events: usize) -> impl Strategy<Value = FaultPlan> {
        let failable: Vec<Step> = protocol
            .steps
            .iter()
            .copied()
            .filter(|s| *s != Step::Receive)
            .collect();
        plan(Boundary::all_of(&protocol.steps), failable, events)
    }

    /// [`fault_plan`] at the given boundaries, failing the steps they name: for a Rust
    /// handler, give it [`super::reached_boundaries`] of the scenario with the handler.
    pub fn fault_plan_at(
        boundaries: Vec<Boundary>,
        events: usize,
    ) -> impl Strategy<Value = FaultPlan> {
        let mut failable: Vec<Step> = Vec::new();
        for b in &boundaries {
            if b.step != Step::Receive && !failable.contains(&b.step) {
                failable.push(b.step);
            }
        }
        plan(boundaries, failable, events)
    }

    fn plan(
        boundaries: Vec<Boundary>,
        failable: Vec<Step>,
        events: usize,
    ) -> impl Strategy<Value = FaultPlan> {
        let fail = (
            proptest::sample::select(failable),
            proptest::option::of(0..events),
            1u32..=3,
        )
            .prop_map(|(step, event, times)| FailSpec {
                step,
                nth: None,
                event,
                delivery: None,
                times,
                until_tick: None,
            });
        let random =
            proptest::option::of(
                (0u32..=300_000, 0u32..=6).prop_map(|(ppm, max)| RandomCrash {
                    per_step_ppm: ppm,
                    max_crashes: max,
                }),
            );
        let delivery_fault =
            (proptest::option::of(0..events), 1u32..=2).prop_map(|(event, times)| DeliveryFault {
                event,
                delivery: None,
                times,
            });
        (
            crashes_at(boundaries, events, 3),
            random,
            proptest::collection::vec(fail, 0..3),
            proptest::collection::vec(delivery_fault.clone(), 0..2),
            proptest::collection::vec(delivery_fault, 0..2),
        )
            .prop_map(
                |(crash, random_crash, fail, lose_ack, duplicate_delivery)| FaultPlan {
                    crash,
                    random_crash,
                    fail,
                    lose_ack,
                    duplicate_delivery,
                    ..FaultPlan::default()
                },
            )
    }
}
