//! Replay tokens: one copy-pasteable string that is an exact run. A token carries the
//! scenario as compact scenario JSON (protocol, workload, store, broker, faults with their
//! planned crashes, seed, limits; not the description or the expectations, which do not
//! change a run) and the scheduling choices of a run with several consumers.
//!
//! The format is versioned and checked: `ds1:` followed by URL-safe base64 without padding
//! (letters, digits, `-` and `_`, so no shell needs it quoted) of the payload JSON and a
//! 4-byte FNV-1a checksum of it. A token that was cut or changed in copying fails its
//! checksum and is refused with a clear error, never run as something else; a token of
//! another version is refused by name. What a token decodes to is validated as any scenario
//! file is.

use super::{Scenario, ScenarioError};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::Deserialize;

/// The version prefix of the tokens this build writes and reads.
pub const PREFIX: &str = "ds1:";

/// What a token decodes to: a validated scenario and the scheduling choices of its run
/// (empty for the default schedule), as [`crate::world::run_scheduled`] takes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    pub scenario: Scenario,
    pub schedule: Vec<u32>,
}

/// Why a string is not a token this build can replay (worded in `report::lang::input`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenError {
    /// Not a token at all: its first characters, as shown.
    NotAToken(String),
    /// A token of another version (`ds2:`).
    Version(String),
    Damaged(Damage),
    Scenario(ScenarioError),
}

impl From<ScenarioError> for TokenError {
    fn from(e: ScenarioError) -> TokenError {
        TokenError::Scenario(e)
    }
}

/// The data, as Rust prints it (`report::lang::input::token` words it for a reader).
impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenError::Scenario(e) => write!(f, "{e}"),
            other => write!(f, "{other:?}"),
        }
    }
}

impl std::error::Error for TokenError {}

/// What is wrong inside a damaged token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Damage {
    /// A character no token has, at 1-based character `at`.
    Character {
        c: char,
        at: usize,
    },
    /// The base64 does not end where a token can end.
    End,
    /// Shorter than a checksum.
    Short,
    Checksum,
    /// The checksum matches but the content is not a replay: serde_json's reason.
    NotAReplay {
        detail: String,
    },
}

/// The payload inside the base64.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Payload {
    scenario: serde_json::Value,
    #[serde(default)]
    schedule: Vec<u32>,
}

/// The token of the run of `scenario` with the scheduling choices `schedule` (trailing
/// default choices are dropped: they are the same run).
pub fn encode(scenario: &Scenario, schedule: &[u32]) -> String {
    let keep = schedule.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    // Written by hand rather than through `Payload`, so that the scenario keeps the
    // schema's field order (a JSON value would sort it).
    let mut text = format!("{{\"scenario\":{}", scenario.to_json_compact());
    if keep > 0 {
        let list = serde_json::to_string(&schedule[..keep]).expect("numbers serialize");
        text.push_str(&format!(",\"schedule\":{list}"));
    }
    text.push('}');
    let mut bytes = text.into_bytes();
    let sum = checksum(&bytes);
    bytes.extend_from_slice(&sum.to_be_bytes());
    format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// Decodes and validates a token.
pub fn decode(token: &str) -> Result<Replay, TokenError> {
    let token = token.trim();
    let shown = || {
        let mut s: String = token.chars().take(24).collect();
        if token.chars().count() > 24 {
            s.push('…');
        }
        s
    };
    let Some(body) = token.strip_prefix(PREFIX) else {
        return Err(match token.split_once(':') {
            Some((v, _))
                if v.len() > 2
                    && v.starts_with("ds")
                    && v[2..].bytes().all(|b| b.is_ascii_digit()) =>
            {
                TokenError::Version(format!("{v}:"))
            }
            _ => TokenError::NotAToken(shown()),
        });
    };
    if let Some((i, c)) = body
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(TokenError::Damaged(Damage::Character {
            c,
            at: PREFIX.len() + body[..i].chars().count() + 1,
        }));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| TokenError::Damaged(Damage::End))?;
    if bytes.len() < 5 {
        return Err(TokenError::Damaged(Damage::Short));
    }
    let (payload, sum) = bytes.split_at(bytes.len() - 4);
    if checksum(payload).to_be_bytes() != sum {
        return Err(TokenError::Damaged(Damage::Checksum));
    }
    let payload: Payload = serde_json::from_slice(payload).map_err(|e| {
        TokenError::Damaged(Damage::NotAReplay {
            detail: e.to_string(),
        })
    })?;
    let scenario = Scenario::from_json(&payload.scenario.to_string(), "in the replay token")?;
    Ok(Replay {
        scenario,
        schedule: payload.schedule,
    })
}

/// FNV-1a, 32 bits: enough to tell a damaged token from a good one, and a few lines.
fn checksum(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h: u32, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::CrashSpec;
    use crate::model::{Boundary, BoundaryPoint, Protocol, Step};

    fn example() -> Scenario {
        let mut s = Scenario::new(Protocol::built_in("no-dedup").unwrap());
        s.seed = 42;
        s.workload.events = 1;
        s.faults.crash = vec![CrashSpec::exactly(BoundaryPoint {
            boundary: Boundary::after(Step::Commit),
            event: 0,
            copy: 0,
            delivery: 1,
        })];
        s
    }

    #[test]
    fn a_token_decodes_to_its_run() {
        let s = example();
        let token = encode(&s, &[]);
        assert!(token.starts_with("ds1:"), "{token}");
        assert!(token.len() < 250, "short: {} characters", token.len());
        assert_eq!(
            decode(&token).unwrap(),
            Replay {
                scenario: s.clone(),
                schedule: vec![]
            }
        );
        assert_eq!(decode(&format!("  {token}\n")).unwrap().scenario, s);
        let with = encode(&s, &[0, 1, 0, 0]);
        assert_eq!(decode(&with).unwrap().schedule, vec![0, 1]);
        assert_eq!(
            encode(&s, &[0, 0]),
            token,
            "default choices are the same run"
        );
    }

    #[test]
    fn numbered_occurrences_survive_a_token() {
        use crate::fault::{CommitTimeoutSpec, FailSpec};
        use Step::*;
        let steps = crate::model::MARK_OWN_TRANSACTION.to_vec();
        let mut s = Scenario::new(Protocol::new("two", "", steps).unwrap());
        s.workload.events = 2;
        s.faults.crash = vec![CrashSpec::exactly(BoundaryPoint {
            boundary: Boundary::before(Commit).nth(2),
            event: 1,
            copy: 0,
            delivery: 1,
        })];
        s.faults.fail = vec![FailSpec {
            step: Commit,
            nth: Some(2),
            event: Some(0),
            delivery: None,
            times: 1,
            until_tick: None,
        }];
        s.faults.commit_timeout = vec![CommitTimeoutSpec {
            nth: Some(2),
            event: Some(1),
            delivery: Some(2),
            applied: false,
        }];
        let back = decode(&encode(&s, &[])).unwrap().scenario;
        assert_eq!(back, s);
        assert_eq!(back.faults.crash[0].at.to_string(), "before:commit#2");
    }

    #[test]
    fn the_description_and_expectations_are_not_carried() {
        let mut s = example();
        s.description = "a long teaching text".into();
        s.expect = Some(Default::default());
        assert_eq!(encode(&s, &[]), encode(&example(), &[]));
    }

    #[test]
    fn every_changed_character_is_caught() {
        let token = encode(&example(), &[1]);
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for i in PREFIX.len()..token.len() {
            let original = token.as_bytes()[i] as char;
            for c in alphabet.chars().filter(|&c| c != original).step_by(7) {
                let mut bad = token.clone();
                bad.replace_range(i..=i, &c.to_string());
                assert!(
                    matches!(decode(&bad), Err(TokenError::Damaged(_))),
                    "{bad} decoded"
                );
            }
        }
        for cut in [token.len() - 1, token.len() - 5, 10] {
            assert!(matches!(decode(&token[..cut]), Err(TokenError::Damaged(_))));
        }
    }

    /// What is wrong, as data (`report::lang::input::token` words it, tested there).
    #[test]
    fn errors_say_what_is_wrong() {
        let token = encode(&example(), &[]);
        assert!(matches!(decode("hello"), Err(TokenError::NotAToken(s)) if s == "hello"));
        let e = decode(&token.replacen("ds1:", "ds7:", 1)).unwrap_err();
        assert!(matches!(&e, TokenError::Version(v) if v == "ds7:"), "{e:?}");
        let e = decode(&format!("{}%{}", &token[..20], &token[21..])).unwrap_err();
        assert!(
            matches!(e, TokenError::Damaged(Damage::Character { c: '%', at: 21 })),
            "{e:?}"
        );
        // A token whose checksum matches but whose scenario is invalid: made by hand.
        let mut bytes = br#"{"scenario":{"protocol":"nope"}}"#.to_vec();
        bytes.extend_from_slice(&checksum(&bytes.clone()).to_be_bytes());
        let forged = format!("ds1:{}", URL_SAFE_NO_PAD.encode(bytes));
        let Err(TokenError::Scenario(e)) = decode(&forged) else {
            panic!("a forged token with an unknown protocol decoded");
        };
        assert_eq!(e.field.as_deref(), Some("protocol"), "{e:?}");
    }
}
