//! The text of a sweep: a seed's fault plan, a finding, a shrunk finding.

use super::*;

/// A sweep's plan in a few words: `crashes 12% ×3, fails apply_effect e1 ×2, republishes e0`.
pub fn plan_text(plan: &SwarmPlan) -> String {
    let mut parts = Vec::new();
    // A budget of no crash, or no chance per step, crashes nothing: not worth a word.
    if let Some(rc) = plan
        .faults
        .random_crash
        .filter(|rc| rc.max_crashes > 0 && rc.per_step_ppm > 0)
    {
        parts.push(format!(
            "crashes {:.1}% per step, at most {}",
            f64::from(rc.per_step_ppm) / 10_000.0,
            rc.max_crashes
        ));
    }
    for f in &plan.faults.fail {
        parts.push(format!(
            "fails {}{} ×{}",
            f.step,
            f.event.map_or(String::new(), |e| format!(" e{e}")),
            f.times
        ));
    }
    if !plan.republish.is_empty() {
        let events: Vec<String> = plan.republish.iter().map(|e| format!("e{e}")).collect();
        parts.push(format!("republishes {}", events.join(", ")));
    }
    for st in &plan.faults.stall {
        parts.push(format!(
            "stalls {} ticks at {} e{}",
            st.ticks,
            st.at,
            st.event.unwrap_or(0)
        ));
    }
    if plan.jitter_ticks > 0 {
        parts.push(format!(
            "deliveries delayed up to {} ticks",
            plan.jitter_ticks
        ));
    }
    if plan.stale_ack == crate::broker::StaleAck::Accept {
        parts.push("stale acks accepted".to_string());
    }
    for (what, faults) in [
        ("loses the ack of", &plan.faults.lose_ack),
        ("broker duplicates", &plan.faults.duplicate_delivery),
    ] {
        for f in faults.iter() {
            parts.push(format!("{what} e{}", f.event.unwrap_or(0)));
        }
    }
    if parts.is_empty() {
        return "no fault drawn".to_string();
    }
    parts.join(", ")
}

/// One line for a failing seed: what broke, under which plan, and how to replay it.
pub fn finding_line(f: &Finding, replay: &str) -> String {
    let v = &f.result.verdict;
    let mut broke: Vec<String> = v
        .events
        .iter()
        .filter(|e| e.outcome != Outcome::Once || !e.acked || e.torn)
        .map(|e| {
            let mut what = format!("e{} {}", e.event, e.outcome.name());
            if e.torn {
                what.push_str(" (torn)");
            }
            if !e.acked && !matches!(e.outcome, Outcome::DeadLettered | Outcome::Stuck) {
                what.push_str(" (unacked)");
            }
            what
        })
        .collect();
    broke.extend(
        v.boundaries
            .iter()
            .skip(1)
            .filter(|b| b.guarantee != Guarantee::ExactlyOnce)
            .map(|b| b.describe()),
    );
    if f.result.stop != StopReason::Quiescent {
        broke.push(stop_text(f.result.stop).to_string());
    }
    format!(
        "seed {}: {} — {}; {}\n    {}",
        f.seed,
        broke.join(", "),
        plan_text(&f.plan),
        match f.result.crashes.len() {
            0 => "no crash".to_string(),
            1 => "1 crash".to_string(),
            n => format!("{n} crashes"),
        },
        replay
    )
}

/// A finding's shrunk run, under its finding line: how small it got, from what, in how many
/// runs, how it fails, its crashes, and the command that replays it.
pub fn shrunk_lines(s: &Shrunk) -> String {
    let crashes: Vec<String> = s
        .result
        .crashes
        .iter()
        .map(|c| c.point.to_string())
        .collect();
    format!(
        "    shrunk to {} in {} runs{} (from {}): {}{}\n    {}",
        s.size.describe(),
        s.runs,
        if s.exhausted {
            ", the budget (a smaller run may exist)"
        } else {
            ""
        },
        s.original.describe(),
        s.signature,
        if crashes.is_empty() {
            String::new()
        } else {
            format!("; crash at {}", crashes.join(", then "))
        },
        crate::report::token_command(&s.token())
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
            plan_text(&plan(120_000, 3)),
            "crashes 12.0% per step, at most 3"
        );
        assert_eq!(plan_text(&plan(120_000, 0)), "no fault drawn");
        assert_eq!(plan_text(&plan(0, 3)), "no fault drawn");
    }
}
