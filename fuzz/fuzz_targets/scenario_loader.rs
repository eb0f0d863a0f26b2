//! The scenario loader on arbitrary bytes: it refuses with a one-line error naming a
//! location or a field, or it loads a scenario that then runs (with clamped limits) to its
//! end. A panic anywhere is a finding.

#![no_main]

use delivery_sim::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match Scenario::from_bytes(data, "fuzz.json") {
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "one line: {line}");
            assert!(
                e.location.is_some() || e.field.as_deref().is_some_and(|f| !f.is_empty()),
                "names a location or a field: {line}"
            );
        }
        Ok(mut s) => {
            // A loaded scenario may legally ask for 10,000 events and ten million steps;
            // keep each execution short, so the fuzzer explores the loader.
            if s.workload.events <= 50 {
                s.limits.max_steps = s.limits.max_steps.min(5_000);
                s.limits.max_ticks = s.limits.max_ticks.min(1_000_000);
                let r = delivery_sim::run(&s);
                assert!(r.steps <= s.limits.max_steps);
            }
        }
    }
});
