//! Tidy check, read as Rust (`syn`): **no code decides by reading a sentence.** Outside
//! `report::lang`, where sentences are made, no production code looks into a message, a
//! detail or a reason (`message.starts_with(…)`, `detail.contains(…)`): what a result
//! means is in its type, and a test of its words breaks the day the words change, or
//! reads English where the user asked for Spanish. The exceptions cross a library's
//! text-only channel, each listed with why.

use crate::tidy::{is_cfg_test, is_test_file, source_texts};
use syn::visit::Visit;

/// The names of values that hold sentences.
const WORDY: &[&str] = &["message", "detail", "details", "reason", "sentence", "msg"];

/// The questions asked of a text's words.
const LOOKS: &[&str] = &[
    "starts_with",
    "ends_with",
    "contains",
    "strip_prefix",
    "strip_suffix",
    "find",
    "rfind",
    "split",
    "matches",
];

/// (file, receiver, method) that may look, and why.
const ALLOWED: &[(&str, &str, &str, &str)] = &[
    (
        "src/scenario/strict.rs",
        "message",
        "strip_prefix",
        "a repeated key crosses serde's error channel, which carries only a string, in a \
         marker this module writes itself (`DuplicateKey`) and reads back",
    ),
    (
        "src/scenario/validate/mod.rs",
        "message",
        "rfind",
        "serde_json's Display ends with the location, which the error reports apart; \
         serde_json has no accessor for the message without it",
    ),
];

/// Every (file, receiver, method) of `text`'s production code that looks into a wordy
/// value's words.
fn looks_in(file: &str, text: &str) -> Vec<(String, String, String)> {
    struct Calls<'a> {
        file: &'a str,
        out: Vec<(String, String, String)>,
    }
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            let method = call.method.to_string();
            let receiver = match &*call.receiver {
                syn::Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
                syn::Expr::Field(f) => match &f.member {
                    syn::Member::Named(n) => Some(n.to_string()),
                    syn::Member::Unnamed(_) => None,
                },
                _ => None,
            };
            if let Some(receiver) = receiver {
                if WORDY.contains(&receiver.as_str()) && LOOKS.contains(&method.as_str()) {
                    self.out.push((self.file.to_string(), receiver, method));
                }
            }
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            if !is_cfg_test(&item.attrs) {
                syn::visit::visit_item_mod(self, item);
            }
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

/// The looks outside `report::lang`, test files and the listed exceptions.
fn stray_looks(files: &[(String, String)]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (file, text) in files {
        let test = is_test_file(file);
        if test || file.starts_with("src/report/lang/") || !file.starts_with("src/") {
            continue;
        }
        for look in looks_in(file, text) {
            let allowed = ALLOWED
                .iter()
                .any(|(f, r, m, _)| *f == look.0 && *r == look.1 && *m == look.2);
            if !allowed {
                out.push(look);
            }
        }
    }
    out
}

#[test]
fn no_code_decides_by_reading_a_sentence() {
    let files = source_texts();
    let stray = stray_looks(&files);
    assert!(
        stray.is_empty(),
        "code looks into a sentence's words: {stray:?}; give the result a type that says \
         what it means, or list the place in ALLOWED with why"
    );
    let all: Vec<_> = files.iter().flat_map(|(f, t)| looks_in(f, t)).collect();
    for (file, receiver, method, _) in ALLOWED {
        let found = (file.to_string(), receiver.to_string(), method.to_string());
        assert!(
            all.contains(&found),
            "{file} no longer calls {receiver}.{method}: take it off ALLOWED"
        );
    }
}

/// The rule catches a look on a variable and on a field, and passes the same call in
/// `report::lang`, in a test module, on a value of another name, and another method.
#[test]
fn the_words_rule_catches_a_look() {
    let file = |rel: &str, text: &str| vec![(rel.to_string(), text.to_string())];
    assert_eq!(
        stray_looks(&file(
            "src/scenario/validate/mod.rs",
            "fn f(message: &str) -> bool { message.starts_with(\"unknown field\") }"
        )),
        [(
            "src/scenario/validate/mod.rs".to_string(),
            "message".to_string(),
            "starts_with".to_string()
        )]
    );
    let caught = stray_looks(&file(
        "src/report/lang/run.rs",
        "fn f(a: &Anomaly) -> bool { a.detail.contains(\"x\") }",
    ));
    assert_eq!(caught, []);
    let caught = stray_looks(&file(
        "src/check/failure.rs",
        "fn f(a: &Anomaly) -> bool { a.detail.contains(\"limit\") }",
    ));
    assert_eq!(caught.len(), 1, "{caught:?}");
    for text in [
        "#[cfg(test)]\nmod tests { fn t() { assert!(message.contains(\"x\")); } }",
        "fn f(sql: &str) -> bool { sql.starts_with(\"SELECT\") }",
        "fn f(message: &str) -> usize { message.len() }",
    ] {
        assert_eq!(stray_looks(&file("src/check/mod.rs", text)), [], "{text}");
    }
}
