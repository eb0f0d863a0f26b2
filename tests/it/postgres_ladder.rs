//! The isolation ladder's words (feature `postgres`): a rung the file cannot run on says
//! why in the reader's language, as every other message does.

#![cfg(feature = "postgres")]

use super::support::*;

/// `FOR UPDATE` and `now()` are PostgreSQL's: SQLite refuses the file when it loads, and
/// the ladder's SQLite rung carries that refusal, worded like any refusal of a file.
#[test]
fn a_rung_sqlite_cannot_load_says_why_in_the_readers_language() {
    let file = "scenarios/postgres/select-for-update-serializes.json";
    let ladder = |lang: &str| {
        let o = bin(&[
            "explore",
            file,
            "--isolation-ladder",
            "--max-preemptions",
            "1",
            "--lang",
            lang,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = stdout(&o);
        let sqlite = (text.lines())
            .find(|l| l.starts_with("sqlite "))
            .unwrap_or_else(|| panic!("no SQLite rung in {text}"))
            .to_string();
        (text, sqlite)
    };
    let (_, en) = ladder("en");
    assert!(en.contains("not run: invalid scenario"), "{en}");
    let (es_text, es) = ladder("es");
    assert!(es.contains("no corre: escenario no válido"), "{es}");
    assert!(
        !es.contains("invalid scenario"),
        "English under --lang es: {es}"
    );
    assert!(es_text.contains("a lo sumo 1 vez\n"), "{es_text}");
}
