//! Reports: what a run, an exploration or the matrix looks like to a person (text) and to a
//! program (JSON), and the command that replays any run.
//!
//! This crate (`delivery-sim-report`) reads the core's results and views and crosscheck's
//! rows; it never runs anything. Text is written for someone who is
//! learning what at-most-once and at-least-once mean: every anomaly names the event, what
//! the database holds for it, and the crashes that hit it.

// The layers below, under the paths this code has always named them by.
use delivery_sim_core::{
    broker, check, consumer, explore, fault, model, producer, scenario, sim, view, world,
};

pub mod arguments;
pub mod bench;
pub mod checks;
pub mod crosscheck;
pub mod diagram;
pub mod explain;
pub mod folder;
pub mod html;
pub mod input;
pub mod json;
pub mod junit;
pub mod lang;
pub mod markdown;
pub mod paint;
pub mod protocols;
pub mod schema;
pub mod text;
pub mod xml;

use crate::explore::sweep::SwarmLimits;
use crate::model::BoundaryPoint;

/// Where a run's scenario came from, so that a report can print the command replaying it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A scenario file.
    File(String),
    /// A built-in protocol with default settings (how `matrix` builds its scenarios).
    BuiltIn { protocol: String, events: usize },
}

impl Origin {
    /// The source as command-line arguments: the file, or `--protocol P --events N`, and
    /// the engine and isolation level the command line chose over the file's (a server's
    /// URL is left out: it is the machine's, and may hold a password).
    fn arguments(&self) -> String {
        let mut args = match self {
            Origin::File(path) => shell_quote(path),
            Origin::BuiltIn { protocol, events } => {
                format!("--protocol {protocol} --events {events}")
            }
        };
        let (engine, isolation) = crate::scenario::engine_overridden();
        if let Some(e) = engine {
            args.push_str(&format!(" --engine {}", e.name()));
        }
        if let Some(i) = isolation {
            args.push_str(&format!(" --isolation {}", i.name().replace('_', "-")));
        }
        args
    }

    /// The exact command that replays seed `seed` of a sweep with `limits`.
    pub fn sweep_replay_command(&self, seed: u64, limits: &SwarmLimits) -> String {
        self.sweep_command(seed..seed + 1, limits)
    }

    /// The exact command that sweeps `seeds` with `limits` (every limit that is not the
    /// default is named, so the seeds draw the same plans).
    pub fn sweep_command(&self, seeds: std::ops::Range<u64>, limits: &SwarmLimits) -> String {
        let mut cmd = format!(
            "delivery-sim sweep {} --seeds {}..{}",
            self.arguments(),
            seeds.start,
            seeds.end
        );
        let d = SwarmLimits::default();
        for (flag, value, default) in [
            ("--max-crash-ppm", limits.max_crash_ppm, d.max_crash_ppm),
            ("--max-crashes", limits.max_crashes, d.max_crashes),
            ("--max-failures", limits.max_failures, d.max_failures),
            (
                "--max-republishes",
                limits.max_republishes,
                d.max_republishes,
            ),
            (
                "--max-broker-faults",
                limits.max_broker_faults,
                d.max_broker_faults,
            ),
            (
                "--max-jitter-ticks",
                limits.max_jitter_ticks,
                d.max_jitter_ticks,
            ),
            (
                "--max-stall-ticks",
                limits.max_stall_ticks,
                d.max_stall_ticks,
            ),
        ] {
            if value != default {
                cmd.push_str(&format!(" {flag} {value}"));
            }
        }
        cmd
    }

    /// The exact command that replays the run with `seed` and, if any, the crashes at
    /// `crashes` in place of the scenario's planned and random crashes.
    pub fn replay_command(&self, seed: u64, crashes: &[BoundaryPoint]) -> String {
        let mut cmd = format!("delivery-sim run {}", self.arguments());
        cmd.push_str(&format!(" --seed {seed}"));
        for p in crashes {
            cmd.push_str(&format!(" --crash '{p}'"));
        }
        cmd
    }

    /// The exact command that explores the scenario with `seed` to `depth`.
    pub fn explore_command(&self, seed: u64, depth: usize) -> String {
        format!(
            "delivery-sim explore {} --seed {seed} --depth {depth}",
            self.arguments()
        )
    }

    /// The exact command that searches the scenario's smallest safe inbox TTL with `seed`,
    /// each candidate verified to crash depth `depth`.
    pub fn ttl_search_command(&self, seed: u64, depth: usize) -> String {
        format!(
            "delivery-sim explore {} --seed {seed} --smallest-safe-ttl --depth {depth}",
            self.arguments()
        )
    }

    /// The exact command that enumerates the scenario's interleavings with `seed` up to
    /// `max_preemptions` departures from round-robin.
    pub fn interleavings_command(&self, seed: u64, max_preemptions: usize) -> String {
        format!(
            "delivery-sim explore {} --seed {seed} --interleavings --max-preemptions \
             {max_preemptions}",
            self.arguments()
        )
    }
}

/// The command that replays the run of a replay token. Tokens hold only letters, digits,
/// `-`, `_` and the `ds1:` prefix, so the command needs no quoting.
pub fn token_command(token: &str) -> String {
    format!("delivery-sim replay {token}")
}

/// Quotes `s` for a POSIX shell when it holds anything but the safe characters.
pub fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Boundary, Step};

    #[test]
    fn replay_commands_quote_paths_and_name_the_crash() {
        let p = BoundaryPoint {
            boundary: Boundary::after(Step::Commit),
            event: 1,
            copy: 0,
            delivery: 1,
        };
        assert_eq!(
            Origin::File("scenarios/a.json".into()).replay_command(7, &[]),
            "delivery-sim run scenarios/a.json --seed 7"
        );
        assert_eq!(
            Origin::File("my dir/it's.json".into()).replay_command(7, &[p, p]),
            r"delivery-sim run 'my dir/it'\''s.json' --seed 7 --crash 'after:commit e1 d1' --crash 'after:commit e1 d1'"
        );
        assert_eq!(
            Origin::BuiltIn {
                protocol: "inbox".into(),
                events: 3
            }
            .replay_command(0, &[p]),
            "delivery-sim run --protocol inbox --events 3 --seed 0 --crash 'after:commit e1 d1'"
        );
        let limits = SwarmLimits {
            max_crashes: 9,
            ..SwarmLimits::default()
        };
        assert_eq!(
            Origin::File("s.json".into()).sweep_replay_command(17, &limits),
            "delivery-sim sweep s.json --seeds 17..18 --max-crashes 9"
        );
        let quiet = SwarmLimits {
            max_broker_faults: 0,
            max_jitter_ticks: 0,
            max_stall_ticks: 0,
            ..SwarmLimits::default()
        };
        assert_eq!(
            Origin::File("s.json".into()).sweep_replay_command(1, &quiet),
            "delivery-sim sweep s.json --seeds 1..2 --max-broker-faults 0 --max-jitter-ticks 0 \
             --max-stall-ticks 0"
        );
        assert_eq!(
            token_command("ds1:abc"),
            "delivery-sim replay ds1:abc",
            "a token needs no quoting"
        );
        assert_eq!(
            Origin::File("my dir/s.json".into()).explore_command(3, 2),
            "delivery-sim explore 'my dir/s.json' --seed 3 --depth 2"
        );
        assert_eq!(
            Origin::File("s.json".into()).interleavings_command(3, 1),
            "delivery-sim explore s.json --seed 3 --interleavings --max-preemptions 1"
        );
    }
}
