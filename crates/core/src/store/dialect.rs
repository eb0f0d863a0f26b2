//! What to write instead, when SQLite refuses a construct of another database's SQL: a
//! port of a PostgreSQL or MySQL consumer meets `now()`, `gen_random_uuid()`, `FOR UPDATE`
//! or a `::` cast before anything else, and SQLite's own message ("no such function",
//! "near \"FOR\": syntax error") does not say what SQLite calls it, or that the PostgreSQL
//! engine runs the SQL as written.
//!
//! A hint is given only when SQLite refused the statement and the construct is in it
//! (outside string literals and comments), so a hint never replaces SQLite's own reason.

use crate::model::DialectHint;

/// A construct of another dialect: how to find it in a statement (lower-case, literals
/// and comments blanked), and what to write instead on SQLite.
struct Construct {
    /// Every one of these words, in this order, separated by blanks only.
    words: &'static [&'static str],
    /// What to write instead on SQLite.
    hint: DialectHint,
}

const CONSTRUCTS: [Construct; 10] = [
    Construct {
        words: &["now", "("],
        hint: DialectHint::Now,
    },
    Construct {
        words: &["gen_random_uuid", "("],
        hint: DialectHint::Uuid,
    },
    Construct {
        words: &["uuid_generate_v4", "("],
        hint: DialectHint::Uuid,
    },
    Construct {
        words: &["skip", "locked"],
        hint: DialectHint::SkipLocked,
    },
    Construct {
        words: &["for", "update"],
        hint: DialectHint::ForUpdate,
    },
    Construct {
        words: &["for", "share"],
        hint: DialectHint::ForShare,
    },
    Construct {
        words: &["on", "duplicate", "key", "update"],
        hint: DialectHint::OnDuplicateKeyUpdate,
    },
    Construct {
        words: &["insert", "ignore"],
        hint: DialectHint::InsertIgnore,
    },
    Construct {
        words: &[":", ":"],
        hint: DialectHint::DoubleColonCast,
    },
    Construct {
        words: &["ilike"],
        hint: DialectHint::Ilike,
    },
];

/// What SQLite's refusal of `sql` misses, if `sql` uses a construct of another dialect:
/// appended to SQLite's message. (Given SQLite's message instead, it finds the function a
/// column default calls: `unknown function: gen_random_uuid()`.)
pub fn hint(sql: &str) -> Option<DialectHint> {
    let tokens = tokens(sql);
    CONSTRUCTS
        .iter()
        .find(|c| tokens.windows(c.words.len()).any(|w| w == c.words))
        .map(|c| c.hint)
}

/// The words and punctuation of `sql`, lower-case, without its string literals, quoted
/// names and comments (where `now()` is text, not a call).
fn tokens(sql: &str) -> Vec<&'static str> {
    let lower = sql.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut chars = lower.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' | '"' | '`' => {
                // To the closing quote (a doubled one stays inside).
                while let Some((_, d)) = chars.next() {
                    if d == c && chars.peek().map(|x| x.1) != Some(c) {
                        break;
                    }
                    if d == c {
                        chars.next();
                    }
                }
            }
            '-' if chars.peek().map(|x| x.1) == Some('-') => {
                for (_, d) in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            c if c.is_ascii_alphanumeric() || c == '_' => {
                let mut end = i + 1;
                while let Some(&(j, d)) = chars.peek() {
                    if !(d.is_ascii_alphanumeric() || d == '_') {
                        break;
                    }
                    end = j + 1;
                    chars.next();
                }
                out.push(known(&lower[i..end]));
            }
            '(' => out.push("("),
            ':' => out.push(":"),
            c if c.is_whitespace() => {}
            _ => out.push("·"),
        }
    }
    out
}

/// `word` as one of the words [`CONSTRUCTS`] look for, or a placeholder that matches none.
fn known(word: &str) -> &'static str {
    CONSTRUCTS
        .iter()
        .flat_map(|c| c.words.iter())
        .find(|w| **w == word)
        .copied()
        .unwrap_or("·")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_construct_of_another_dialect_gets_its_hint() {
        use DialectHint::*;
        for (sql, want) in [
            ("INSERT INTO t VALUES (:event_id, NOW())", Now),
            ("INSERT INTO t VALUES (gen_random_uuid())", Uuid),
            ("INSERT INTO t VALUES (uuid_generate_v4 ())", Uuid),
            ("SELECT * FROM t WHERE k = :k FOR UPDATE", ForUpdate),
            ("SELECT * FROM t FOR UPDATE SKIP LOCKED", SkipLocked),
            ("SELECT * FROM t FOR SHARE", ForShare),
            (
                "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE n = n + 1",
                OnDuplicateKeyUpdate,
            ),
            ("INSERT IGNORE INTO t VALUES (1)", InsertIgnore),
            ("SELECT :n::int", DoubleColonCast),
            ("SELECT '5'::text", DoubleColonCast),
            ("SELECT * FROM t WHERE name ILIKE 'a%'", Ilike),
        ] {
            assert_eq!(hint(sql), Some(want), "{sql}");
        }
    }

    #[test]
    fn the_checker_adds_the_hint_to_sqlite_s_refusal_and_finds_a_default_s_call() {
        let schema = ["CREATE TABLE t (k TEXT PRIMARY KEY, id TEXT DEFAULT (gen_random_uuid()))"];
        let checker = crate::store::SqlChecker::new(&schema.map(String::from), &[]).unwrap();
        let e = checker.prepare("SELECT k FROM t FOR UPDATE").unwrap_err();
        assert_eq!(e.hint, Some(DialectHint::ForUpdate));
        assert!(
            e.english()
                .contains("syntax error; SQLite has no row locks"),
            "{e:?}"
        );
        let e = checker
            .prepare("INSERT INTO t (k) VALUES ('a')")
            .unwrap_err();
        assert_eq!(
            e.hint,
            Some(DialectHint::Uuid),
            "found in SQLite's message: {e:?}"
        );
        let e = checker.prepare("SELECT nosuch FROM t").unwrap_err();
        assert_eq!(e.hint, None, "no hint where none applies");
        assert_eq!(e.english(), "no such column: nosuch");
    }

    #[test]
    fn text_that_only_mentions_a_construct_gets_none() {
        for sql in [
            "INSERT INTO t VALUES ('now()')",
            "SELECT 1 -- FOR UPDATE",
            "SELECT \"for\" FROM t WHERE x = 'update'",
            "INSERT INTO t VALUES (:now)",
            "SELECT * FROM forum, updates",
            "INSERT OR IGNORE INTO t VALUES (1)",
        ] {
            assert_eq!(hint(sql), None, "{sql}");
        }
    }
}
