//! The text of a sweep: a seed's fault plan, a finding, a shrunk finding.

use super::*;

/// A sweep's plan in a few words: `crashes 12% ×3, fails apply_effect e1 ×2, republishes e0`.
pub fn plan_text(l: Lang, plan: &SwarmPlan) -> String {
    let mut parts = Vec::new();
    // A budget of no crash, or no chance per step, crashes nothing: not worth a word.
    if let Some(rc) = plan
        .faults
        .random_crash
        .filter(|rc| rc.max_crashes > 0 && rc.per_step_ppm > 0)
    {
        parts.push(l.plan_crashes(f64::from(rc.per_step_ppm) / 10_000.0, rc.max_crashes));
    }
    for f in &plan.faults.fail {
        let event = f.event.map_or(String::new(), |e| format!(" e{e}"));
        parts.push(l.plan_fails(&f.step.to_string(), &event, f.times));
    }
    if !plan.republish.is_empty() {
        let events: Vec<String> = plan.republish.iter().map(|e| format!("e{e}")).collect();
        parts.push(l.plan_republishes(&events.join(", ")));
    }
    for st in &plan.faults.stall {
        parts.push(l.plan_stall(st.ticks, &st.at.to_string(), st.event.unwrap_or(0)));
    }
    if plan.jitter_ticks > 0 {
        parts.push(l.plan_jitter(plan.jitter_ticks));
    }
    if plan.stale_ack == crate::broker::StaleAck::Accept {
        parts.push(l.plan_stale_acks().to_string());
    }
    for f in &plan.faults.lose_ack {
        parts.push(l.plan_lose_ack(f.event.unwrap_or(0)));
    }
    for f in &plan.faults.duplicate_delivery {
        parts.push(l.plan_broker_duplicate(f.event.unwrap_or(0)));
    }
    if parts.is_empty() {
        return l.plan_no_fault().to_string();
    }
    parts.join(", ")
}

/// One line for a failing seed: what broke, under which plan, and how to replay it.
pub fn finding_line(l: Lang, f: &Finding, replay: &str) -> String {
    let v = &f.result.verdict;
    let mut broke: Vec<String> = v
        .events
        .iter()
        .filter(|e| e.outcome != Outcome::Once || !e.acked || e.torn)
        .map(|e| {
            let name = match l {
                Lang::En => e.outcome.name().to_string(),
                Lang::Es => l.outcome(e.outcome),
            };
            let mut what = format!("e{} {name}", e.event);
            if e.torn {
                what.push_str(l.finding_torn());
            }
            if !e.acked && !matches!(e.outcome, Outcome::DeadLettered | Outcome::Stuck) {
                what.push_str(l.finding_unacked());
            }
            what
        })
        .collect();
    broke.extend(
        v.boundaries
            .iter()
            .skip(1)
            .filter(|b| b.guarantee != Guarantee::ExactlyOnce)
            .map(|b| l.describe_scope(b)),
    );
    if f.result.stop != StopReason::Quiescent {
        broke.push(l.stop_text(f.result.stop).to_string());
    }
    format!(
        "{} {}: {} — {}; {}\n    {}",
        l.choose("seed", "semilla"),
        f.seed,
        broke.join(", "),
        plan_text(l, &f.plan),
        l.crash_count(f.result.crashes.len()),
        replay
    )
}

/// A finding's shrunk run, under its finding line: how small it got, from what, in how many
/// runs, how it fails, its crashes, and the command that replays it.
pub fn shrunk_lines(l: Lang, s: &Shrunk) -> String {
    let crashes: Vec<String> = s
        .result
        .crashes
        .iter()
        .map(|c| c.point.to_string())
        .collect();
    format!(
        "    {}\n    {}",
        l.shrunk_line(
            (&l.run_size(&s.size), &l.run_size(&s.original)),
            s.runs,
            s.exhausted,
            &l.failure_signature(&s.signature),
            &crashes
        ),
        crate::token_command(&s.token())
    )
}

/// The description of a regression scenario written from a replay token: where it came
/// from, how its run fails, and what its `expect` block is for.
pub fn regression_description(
    r: &RunResult,
    failure: &crate::explore::shrink::FailureSignature,
    token: &str,
    schedule: &[u32],
) -> String {
    let v = &r.verdict;
    let events: Vec<String> = v
        .events
        .iter()
        .filter(|e| e.outcome != Outcome::Once)
        .map(|e| format!("e{} {}", e.event, e.outcome.name()))
        .collect();
    let crashes: Vec<String> = r.crashes.iter().map(|c| c.point.to_string()).collect();
    let mut text = format!(
        "Regression scenario written by `delivery-sim replay --scenario-out` from a replay \
         token. Its run fails this way: {failure}{}{}. The expect block pins the run as \
         observed, so `delivery-sim run` on this file exits 0 while the run still comes out \
         exactly so, and 1 once it changes (the protocol fixed, or the simulator changed).",
        if events.is_empty() {
            String::new()
        } else {
            format!(" ({})", events.join(", "))
        },
        if crashes.is_empty() {
            String::new()
        } else {
            format!(", with a crash at {}", crashes.join(", then "))
        },
    );
    if let Some(last) = schedule.iter().rposition(|&c| c != 0) {
        let list: Vec<String> = schedule[..=last].iter().map(|c| c.to_string()).collect();
        text.push_str(&format!(
            " Its consumers' scheduling choices are not part of a scenario file: run it with \
             `--schedule {}`.",
            list.join(",")
        ));
    }
    text.push_str(&format!(" Replay token: {token}"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{FaultPlan, RandomCrash};

    fn plan(per_step_ppm: u32, max_crashes: u32) -> SwarmPlan {
        SwarmPlan {
            faults: FaultPlan {
                random_crash: Some(RandomCrash {
                    per_step_ppm,
                    max_crashes,
                }),
                ..FaultPlan::default()
            },
            republish: Vec::new(),
            lease_ticks: None,
            jitter_ticks: 0,
            stale_ack: crate::broker::StaleAck::default(),
        }
    }

    #[test]
    fn a_plan_that_cannot_crash_says_nothing_of_crashes() {
        assert_eq!(
            plan_text(Lang::En, &plan(120_000, 3)),
            "crashes 12.0% per step, at most 3"
        );
        assert_eq!(plan_text(Lang::En, &plan(120_000, 0)), "no fault drawn");
        assert_eq!(plan_text(Lang::En, &plan(0, 3)), "no fault drawn");
    }
}
