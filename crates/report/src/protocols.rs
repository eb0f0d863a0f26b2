//! `protocols`: the built-in protocols with their steps and the guarantee each gives under
//! single crashes, as text for people (in either language) and as JSON for programs.

use crate::lang::Lang;
use crate::model::{built_ins, Guarantee, Step, StepActor};
use serde::Serialize;
use std::fmt::Write as _;

/// The listing for people, in language `l`.
pub fn text(l: Lang) -> String {
    let mut out = String::new();
    let (steps_label, guarantee_label) = l.protocols_labels();
    for b in built_ins() {
        let steps: Vec<&str> = b.steps.iter().map(|s| s.name()).collect();
        let _ = writeln!(
            out,
            "{:<17} {}\n{:<17} {steps_label}: {}\n{:<17} {guarantee_label}: {}\n",
            b.name,
            l.built_in_description(b),
            "",
            steps.join(" → "),
            "",
            b.crash_guarantee
        );
    }
    out.push_str(&l.protocols_custom(&custom_steps().join(", ")));
    out.push('\n');
    out
}

/// The steps a scenario's own protocol may use, by name.
fn custom_steps() -> Vec<&'static str> {
    Step::ALL
        .iter()
        .filter(|s| s.actor() == StepActor::Consumer && !s.is_policy_step())
        .map(|s| s.name())
        .collect()
}

/// One built-in protocol of `protocols --json`.
#[derive(Serialize, schemars::JsonSchema)]
pub struct ProtocolJson {
    pub name: String,
    /// What it does and what it gives, in English (the protocol file's own words).
    pub description: String,
    /// Its steps by name, in order, as a scenario's `protocol.steps` takes them (named
    /// `protocol_steps`, as in every output that lists a protocol's steps).
    pub protocol_steps: Vec<crate::model::Step>,
    /// The guarantee it gives against single consumer crashes (the matrix checks it).
    pub crash_guarantee: Guarantee,
}

/// `protocols --json`.
#[derive(Serialize, schemars::JsonSchema)]
pub struct ProtocolsJson {
    pub protocols: Vec<ProtocolJson>,
    /// The step names a scenario's own protocol may use.
    pub custom_steps: Vec<&'static str>,
}

/// The listing for programs.
pub fn json() -> ProtocolsJson {
    ProtocolsJson {
        protocols: built_ins()
            .iter()
            .map(|b| ProtocolJson {
                name: b.name.clone(),
                description: b.description.clone(),
                protocol_steps: b.steps.clone(),
                crash_guarantee: b.crash_guarantee,
            })
            .collect(),
        custom_steps: custom_steps(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_has_a_spanish_description_and_the_listing_names_every_step() {
        for b in built_ins() {
            let es = Lang::Es.built_in_description(b);
            assert_ne!(es, b.description, "{}: no Spanish description", b.name);
            assert_eq!(Lang::En.built_in_description(b), b.description);
        }
        let en = text(Lang::En);
        assert!(en.ends_with(
            "receive, begin, check_inbox, insert_inbox, apply_effect, commit, ack, \
             external_effect, enqueue_email, produce_output.\n"
        ));
        let es = text(Lang::Es);
        assert!(es.contains("ante caídas únicas: at-most-once"), "{es}");
        assert!(
            !es.contains("steps:") && !es.contains("Acks on receipt"),
            "{es}"
        );
    }
}
