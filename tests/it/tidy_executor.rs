//! Tidy check, read as Rust (`syn`): **one step function asks the fault injector.**
//! Whether a process crashes or stalls at a boundary, and what faults a step meets, are
//! asked in `world::step` only (`World::step`, `World::reach`), the one place every
//! process's step goes through; a turn, the store, the checker or a report that asked on
//! its own would give a process a fault the others' steps cannot meet. The exceptions are
//! listed with why.

use crate::tidy::source_texts;
use syn::visit::Visit;

/// The injector's questions.
const ASKS: &[&str] = &["crash_at", "stall_at", "step_faults", "duplicates_delivery"];

/// The one file that asks them.
const STEP: &str = "src/world/step.rs";

/// Other places that ask, each with why.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "src/world/consumer_turn.rs",
        "duplicates_delivery",
        "the broker's own fault, when it hands a delivery over: before the receiving \
         step's boundary, as a broker would",
    ),
    (
        "src/world/publish.rs",
        "step_faults",
        "a direct producer's publications at tick 0, before any process runs (no step)",
    ),
];

/// Every (file, question) where `text` calls one of the injector's questions on a
/// `faults` field (`self.faults.crash_at(…)`).
fn asks_in(file: &str, text: &str) -> Vec<(String, String)> {
    struct Calls<'a> {
        file: &'a str,
        out: Vec<(String, String)>,
    }
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            let method = call.method.to_string();
            let on_faults = matches!(&*call.receiver, syn::Expr::Field(f)
                if matches!(&f.member, syn::Member::Named(n) if n == "faults"));
            if on_faults && ASKS.contains(&method.as_str()) {
                self.out.push((self.file.to_string(), method));
            }
            syn::visit::visit_expr_method_call(self, call);
        }
    }
    let parsed = syn::parse_file(text).expect("the crate parses");
    let mut calls = Calls {
        file,
        out: Vec::new(),
    };
    calls.visit_file(&parsed);
    calls.out
}

/// The asks outside the step function and its listed exceptions.
fn stray_asks(files: &[(String, String)]) -> Vec<(String, String)> {
    let mut stray = Vec::new();
    for (file, text) in files {
        for (f, method) in asks_in(file, text) {
            let allowed = f == STEP || ALLOWED.iter().any(|(af, am, _)| *af == f && *am == method);
            if !allowed {
                stray.push((f, method));
            }
        }
    }
    stray
}

#[test]
fn only_the_step_function_asks_the_fault_injector() {
    let files = source_texts();
    let stray = stray_asks(&files);
    assert!(
        stray.is_empty(),
        "the fault injector asked outside World::step ({STEP}): {stray:?}; ask in the step \
         (ProcessStep::query for a step's faults), or list the place in ALLOWED with why"
    );
    let asks: Vec<(String, String)> = files.iter().flat_map(|(f, t)| asks_in(f, t)).collect();
    for q in ["crash_at", "stall_at", "step_faults"] {
        assert!(
            asks.iter().any(|(f, m)| f == STEP && m == q),
            "{STEP} no longer asks {q}: this rule is reading the wrong file"
        );
    }
    for (file, method, _) in ALLOWED {
        assert!(
            asks.contains(&(file.to_string(), method.to_string())),
            "{file} no longer asks {method}: take it off ALLOWED"
        );
    }
}

/// The rule catches a turn that asks on its own, through a field of another value too,
/// and passes the step file and a method of the same name on something else.
#[test]
fn the_ask_rule_catches_a_stray_question() {
    let files = [
        (
            "src/world/consumer_turn.rs".to_string(),
            "fn t(&mut self) { if self.faults.crash_at(&p).is_some() {} \
             let f = w.faults.step_faults(q); self.queue.stall_at(1); }"
                .to_string(),
        ),
        (
            STEP.to_string(),
            "fn s(&mut self) { self.faults.crash_at(&p); }".to_string(),
        ),
    ];
    let stray = stray_asks(&files);
    let file = "src/world/consumer_turn.rs".to_string();
    assert_eq!(
        stray,
        vec![
            (file.clone(), "crash_at".to_string()),
            (file, "step_faults".to_string())
        ]
    );
}
