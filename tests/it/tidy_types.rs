//! Tidy check, read as Rust (`syn`): **results are typed data; words are made at the edge.**
//! No public type of `check` or `model` carries a `String` (or a list or map of them) but
//! for ids, names and text the user wrote (SQL, payloads, descriptions), each listed below
//! with why. A sentence in a result would have to be worded in one language by the layer
//! that judges, and parsed back by the one that words it.

use crate::tidy::{is_test_file, source_texts};
use syn::visit::Visit;

/// The `Type.field` (or `Type::Variant.field`) that may hold text, and why.
const ALLOWED: &[(&str, &str)] = &[
    // Ids: the event's and the transfer's, as the database stores them.
    ("EventReport.event_id", "an id"),
    ("EventReport.transfer_id", "an id"),
    ("IntentReport.transfer_id", "an id"),
    ("PayloadAlert.stored_payload", "the user's payload"),
    ("PayloadAlert.received_payload", "the user's payload"),
    ("PayloadAlertRow.event_id", "an id"),
    ("PayloadAlertRow.stored_payload", "the user's payload"),
    ("PayloadAlertRow.received_payload", "the user's payload"),
    ("Event.event_id", "an id"),
    ("Event.transfer_id", "an id"),
    ("Event.source", "an account's name"),
    ("Event.target", "an account's name"),
    ("Account.name", "an account's name"),
    ("Verdict.drifted_accounts", "accounts' names"),
    ("ScopeInputs.committed_intents", "transfer ids"),
    // The committed database, keyed by the ids and names it stores.
    ("CommittedState.ledger", "keyed by event id"),
    ("CommittedState.inbox", "keyed by event id"),
    ("CommittedState.balances", "keyed by account name"),
    ("CommittedState.ledger_sums", "keyed by account name"),
    ("CommittedState.rejected", "keyed by event id"),
    ("CommittedState.pending", "keyed by event id"),
    ("CommittedState.credit_amounts", "keyed by event id"),
    ("CommittedState.ledger_by_transfer", "keyed by transfer id"),
    ("CommittedState.effects", "keyed by event id"),
    ("CommittedState.tables", "keyed by the user's table names"),
    // The protocol as the user wrote it.
    ("Protocol.name", "a name"),
    ("Protocol.description", "the user's text"),
    ("Protocol.db_names", "names"),
    ("SqlStep.statements", "the user's SQL"),
    ("Condition.source", "the user's condition, as written"),
    // Why a condition or a crash point does not parse: the text the user wrote, quoted.
    (
        "ConditionError::AfterTheEnd.token",
        "a token of the user's condition",
    ),
    (
        "ConditionError::TooLarge.digits",
        "digits of the user's condition",
    ),
    (
        "ConditionError::NoColumn.result",
        "a name in the user's condition",
    ),
    (
        "ConditionError::NotAName.word",
        "a word of the user's condition",
    ),
    (
        "ConditionError::NotAnOperand.found",
        "a token of the user's condition",
    ),
    ("PointError::NoSide.text", "the user's crash point"),
    (
        "PointError::BadSide.side",
        "a part of the user's crash point",
    ),
    ("PointError::BadSide.text", "the user's crash point"),
    (
        "PointError::BadOccurrence.occurrence",
        "a part of the user's crash point",
    ),
    ("PointError::BadOccurrence.text", "the user's crash point"),
    ("PointError::UnknownStep.step", "a step name the user wrote"),
    ("PointError::UnknownStep.text", "the user's crash point"),
    ("PointError::PointShape.text", "the user's crash point"),
    ("PointError::PointDelivery.text", "the user's crash point"),
    ("BuiltIn.name", "a built-in protocol's name"),
    (
        "BuiltIn.description",
        "a built-in protocol's description, as a file's",
    ),
    ("Call::Sql.sql", "the handler's SQL"),
    ("Call::Sql.params", "the handler's parameter names"),
    ("Value::Text.0", "a value the handler passed or read"),
    ("SqlValue::Text.0", "a value a SQL step passed or read"),
    ("SqlEvent.event_id", "an id"),
    ("SqlEvent.event_type", "the user's event type"),
    ("SqlEvent.payload", "the user's payload fields"),
    ("InvariantResult.sql", "the user's SQL"),
    (
        "CheckValue::Read.0",
        "a value the user's SQL read, as SQL writes it",
    ),
    ("CheckValue::NotACount.event_id", "an event's id"),
    (
        "HandlerError::Other.0",
        "the handler's own reason, as its code gave it",
    ),
    (
        "TraceKind::HandlerFailed.error",
        "the handler's own error, as its code gave it",
    ),
    ("TraceKind::Kept.row", "a row the user's SQL read"),
    (
        "SqlError.message",
        "the database's own message, as it gave it",
    ),
    // A refused statement (model::refusal): the engine's own words, and the names the
    // user's SQL holds; every sentence around them is worded by report::lang.
    (
        "RefusalReason::Engine.message",
        "the database's own message, as it gave it",
    ),
    ("RefusalReason::Engine.sqlstate", "PostgreSQL's error code"),
    (
        "RefusalReason::Client.message",
        "the PostgreSQL client's own error",
    ),
    (
        "RefusalReason::Default.column",
        "a column of the user's schema",
    ),
    (
        "RefusalReason::Positional.marker",
        "the parameter marker the user wrote",
    ),
    ("RefusalReason::Unbound.name", "a parameter the user wrote"),
    (
        "RefusalReason::TransactionControl.word",
        "a word of the user's SQL",
    ),
    ("RefusalReason::ServerWide.verb", "a word of the user's SQL"),
    (
        "RefusalReason::ServerWide.object",
        "a word of the user's SQL",
    ),
    (
        "RefusalReason::MachineClock.keyword",
        "a word of the user's SQL",
    ),
    (
        "RefusalReason::MachineFunction.function",
        "a function the user's SQL calls",
    ),
    (
        "RefusalReason::CatalogFunction.function",
        "a function the user's SQL calls",
    ),
    ("SandboxRule::Pragma.name", "a pragma the user's SQL names"),
    (
        "SandboxRule::ConnectionState.function",
        "a function the user's SQL calls",
    ),
    (
        "SandboxRule::LoadsCode.function",
        "a function the user's SQL calls",
    ),
    (
        "NoDatabase::Unreachable.message",
        "the server's or the client's own message",
    ),
    (
        "NoDatabase::SchemaTaken.name",
        "a database name the user gave",
    ),
    (
        "NoDatabase::SchemaTaken.message",
        "the database's own message, as it gave it",
    ),
    // A failed expectation names the `expect` field it compared, as the file spells it.
    (
        "ExpectationFailure::Field.field",
        "a field's path in the scenario file",
    ),
];

/// Every field of a public struct or enum in `text` whose type mentions `String`, as
/// `Type.field` or `Type::Variant.field` (a tuple field by its index).
fn text_fields(text: &str) -> Vec<String> {
    struct Finder(Vec<String>);
    fn has_string(ty: &syn::Type) -> bool {
        struct Has(bool);
        impl<'a> Visit<'a> for Has {
            fn visit_path_segment(&mut self, s: &'a syn::PathSegment) {
                self.0 |= s.ident == "String";
                syn::visit::visit_path_segment(self, s);
            }
        }
        let mut has = Has(false);
        has.visit_type(ty);
        has.0
    }
    fn fields(out: &mut Vec<String>, owner: &str, fields: &syn::Fields) {
        for (i, f) in fields.iter().enumerate() {
            if has_string(&f.ty) {
                let name = f.ident.as_ref().map_or(i.to_string(), |n| n.to_string());
                out.push(format!("{owner}.{name}"));
            }
        }
    }
    impl<'a> Visit<'a> for Finder {
        fn visit_item_struct(&mut self, s: &'a syn::ItemStruct) {
            if matches!(s.vis, syn::Visibility::Public(_)) {
                fields(&mut self.0, &s.ident.to_string(), &s.fields);
            }
        }
        fn visit_item_enum(&mut self, e: &'a syn::ItemEnum) {
            if matches!(e.vis, syn::Visibility::Public(_)) {
                for v in &e.variants {
                    fields(&mut self.0, &format!("{}::{}", e.ident, v.ident), &v.fields);
                }
            }
        }
        fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
            // Test modules build what they like.
            let test = m.attrs.iter().any(|a| a.path().is_ident("cfg"));
            if !test {
                syn::visit::visit_item_mod(self, m);
            }
        }
    }
    let file = syn::parse_file(text).expect("the source parses");
    let mut finder = Finder(Vec::new());
    finder.visit_file(&file);
    finder.0
}

/// The text fields of `check`'s and `model`'s public types that are not allowed.
fn prose_fields(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, text) in files {
        for field in text_fields(text) {
            if !ALLOWED.iter().any(|(a, _)| *a == field) {
                out.push(format!("{rel}: `{field}` holds text"));
            }
        }
    }
    out
}

/// The production files of the layers `check` and `model`, wherever their crate is.
fn layer_files() -> Vec<(String, String)> {
    (source_texts().into_iter())
        .filter(|(rel, _)| rel.starts_with("src/check/") || rel.starts_with("src/model/"))
        .filter(|(rel, _)| !is_test_file(rel))
        .collect()
}

#[test]
fn check_and_model_results_hold_no_prose() {
    let files = layer_files();
    assert!(files.len() > 20, "{} files", files.len());
    let v = prose_fields(&files);
    assert!(v.is_empty(), "{v:#?}");
    // Every allowance is still needed: a field that no longer exists leaves the list.
    let found: Vec<String> = files.iter().flat_map(|(_, t)| text_fields(t)).collect();
    let stale: Vec<&str> = (ALLOWED.iter())
        .map(|(a, _)| *a)
        .filter(|a| !found.iter().any(|f| f == a))
        .collect();
    assert!(stale.is_empty(), "allowed but gone: {stale:?}");
}

#[test]
fn the_prose_rule_catches_a_sentence_in_a_result() {
    let file = |text: &str| vec![("src/check/x.rs".to_string(), text.to_string())];
    let caught = [
        (
            "pub struct Anomaly { pub detail: Option<String> }",
            "Anomaly.detail",
        ),
        (
            "pub enum Why { Limit { why: std::string::String } }",
            "Why::Limit.why",
        ),
        ("pub struct Lines(pub Vec<String>);", "Lines.0"),
        (
            "pub struct M { pub by: std::collections::BTreeMap<u8, String> }",
            "M.by",
        ),
    ];
    for (text, field) in caught {
        let v = prose_fields(&file(text));
        assert_eq!(
            v,
            [format!("src/check/x.rs: `{field}` holds text")],
            "{text}"
        );
    }
    // An allowed id, a private type and a test module's type pass.
    for fine in [
        "pub struct EventReport { pub event_id: String }",
        "struct Private { detail: String }",
        "#[cfg(test)] mod tests { pub struct T { pub detail: String } }",
        "pub struct Typed { pub why: crate::check::UnackedReason }",
    ] {
        assert!(prose_fields(&file(fine)).is_empty(), "{fine}");
    }
}
