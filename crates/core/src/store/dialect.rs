//! What to write instead, when SQLite refuses a construct of another database's SQL: a
//! port of a PostgreSQL or MySQL consumer meets `now()`, `gen_random_uuid()`, `FOR UPDATE`
//! or a `::` cast before anything else, and SQLite's own message ("no such function",
//! "near \"FOR\": syntax error") does not say what SQLite calls it, or that the PostgreSQL
//! engine runs the SQL as written.
//!
//! A hint is given only when SQLite refused the statement and the construct is in it
//! (outside string literals and comments), so a hint never replaces SQLite's own reason.

/// A construct of another dialect: how to find it in a statement (lower-case, literals
/// and comments blanked), and what to write instead on SQLite.
struct Construct {
    /// Every one of these words, in this order, separated by blanks only.
    words: &'static [&'static str],
    /// What to write instead on SQLite.
    instead: &'static str,
}

const CONSTRUCTS: [Construct; 10] = [
    Construct {
        words: &["now", "("],
        instead: "SQLite has no now(): bind `:now` (the run's virtual time, an integer) or \
                  write CURRENT_TIMESTAMP (the run's clock, kept deterministic)",
    },
    Construct {
        words: &["gen_random_uuid", "("],
        instead: "SQLite has no UUID function: write lower(hex(randomblob(16))) (drawn from \
                  the run's random stream, so deterministic), or use the delivery's own \
                  :event_id",
    },
    Construct {
        words: &["uuid_generate_v4", "("],
        instead: "SQLite has no UUID function: write lower(hex(randomblob(16))) (drawn from \
                  the run's random stream, so deterministic), or use the delivery's own \
                  :event_id",
    },
    Construct {
        words: &["skip", "locked"],
        instead: "SQLite has no row locks (SKIP LOCKED): one writer holds the whole \
                  database, so drop the clause",
    },
    Construct {
        words: &["for", "update"],
        instead: "SQLite has no row locks (FOR UPDATE): the transaction's first write takes \
                  the whole database's write lock, so drop the clause",
    },
    Construct {
        words: &["for", "share"],
        instead: "SQLite has no row locks (FOR SHARE): drop the clause",
    },
    Construct {
        words: &["on", "duplicate", "key", "update"],
        instead: "MySQL's ON DUPLICATE KEY UPDATE is written ON CONFLICT (key columns) DO \
                  UPDATE SET … in SQLite (and in PostgreSQL)",
    },
    Construct {
        words: &["insert", "ignore"],
        instead: "MySQL's INSERT IGNORE is written INSERT OR IGNORE in SQLite, or INSERT … ON \
                  CONFLICT DO NOTHING (SQLite and PostgreSQL)",
    },
    Construct {
        words: &[":", ":"],
        instead: "SQLite has no `::` cast: write CAST(value AS type)",
    },
    Construct {
        words: &["ilike"],
        instead: "SQLite has no ILIKE: its LIKE already ignores the case of ASCII letters",
    },
];

/// What SQLite's refusal of `sql` misses, if `sql` uses a construct of another dialect:
/// appended to SQLite's message. (Given SQLite's message instead, it finds the function a
/// column default calls: `unknown function: gen_random_uuid()`.)
pub fn hint(sql: &str) -> Option<String> {
    let tokens = tokens(sql);
    let found = CONSTRUCTS
        .iter()
        .find(|c| tokens.windows(c.words.len()).any(|w| w == c.words))?;
    Some(format!(
        "; {}; or run the SQL as written on PostgreSQL with `--engine postgres` (or \
         `store.engine: postgres`)",
        found.instead
    ))
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
        for (sql, words) in [
            ("INSERT INTO t VALUES (:event_id, NOW())", "virtual time"),
            ("INSERT INTO t VALUES (gen_random_uuid())", "randomblob"),
            ("INSERT INTO t VALUES (uuid_generate_v4 ())", "randomblob"),
            ("SELECT * FROM t WHERE k = :k FOR UPDATE", "FOR UPDATE"),
            ("SELECT * FROM t FOR UPDATE SKIP LOCKED", "SKIP LOCKED"),
            ("SELECT * FROM t FOR SHARE", "FOR SHARE"),
            (
                "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE n = n + 1",
                "ON CONFLICT",
            ),
            ("INSERT IGNORE INTO t VALUES (1)", "INSERT OR IGNORE"),
            ("SELECT :n::int", "CAST"),
            ("SELECT '5'::text", "CAST"),
            ("SELECT * FROM t WHERE name ILIKE 'a%'", "ILIKE"),
        ] {
            let h = hint(sql).unwrap_or_else(|| panic!("no hint for {sql}"));
            assert!(h.contains(words), "{sql}: {h}");
            assert!(h.contains("--engine postgres"), "{h}");
        }
    }

    #[test]
    fn the_checker_adds_the_hint_to_sqlite_s_refusal_and_finds_a_default_s_call() {
        let schema = ["CREATE TABLE t (k TEXT PRIMARY KEY, id TEXT DEFAULT (gen_random_uuid()))"];
        let checker = crate::store::SqlChecker::new(&schema.map(String::from), &[]).unwrap();
        let e = checker.prepare("SELECT k FROM t FOR UPDATE").unwrap_err();
        assert!(e.contains("syntax error; SQLite has no row locks"), "{e}");
        let e = checker
            .prepare("INSERT INTO t (k) VALUES ('a')")
            .unwrap_err();
        assert!(e.contains("randomblob"), "{e}");
        let e = checker.prepare("SELECT nosuch FROM t").unwrap_err();
        assert_eq!(e, "no such column: nosuch", "no hint where none applies");
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
