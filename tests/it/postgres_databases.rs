//! Named databases (`store.databases`) on PostgreSQL: each a schema of the run's database
//! with connections of its own. Without a server: the names PostgreSQL or the tool keeps
//! are refused before any work. With feature `postgres`: the dual-write files give, schedule
//! for schedule, what they give on SQLite; crosscheck's child holds every connection of
//! the consumer; a wait across connections to a named database is seen; what cannot be
//! built is named.

use super::support::*;

/// `scenarios/sql-dual-write-dedup-before-effect.json` moved to PostgreSQL, with its named
/// database renamed `name`.
fn dual_write_on_postgres(name: &str) -> serde_json::Value {
    let text =
        std::fs::read_to_string(root().join("scenarios/sql-dual-write-dedup-before-effect.json"))
            .unwrap()
            .replace("\"dedup\"", &format!("\"{name}\""));
    let mut file: serde_json::Value = serde_json::from_str(&text).unwrap();
    file["store"]["engine"] = "postgres".into();
    file
}

#[test]
fn a_name_postgresql_or_the_tool_keeps_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    for name in ["run", "ds", "public", "information_schema", "pg_dedup"] {
        let path = write(
            dir.path(),
            "named.json",
            &dual_write_on_postgres(name).to_string(),
        );
        // No server is needed to say so: PG_BIN points at an empty folder.
        let o = command(env!("CARGO_BIN_EXE_delivery-sim"))
            .args(["run", &path])
            .env("PG_BIN", empty.path())
            .env_remove("DELIVERY_SIM_DATABASE_URL")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("store.databases.{name}")), "{err}");
        assert!(err.contains("schema"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[cfg(feature = "postgres")]
mod server {
    use super::super::postgres::server::{in_tmp, json, left_nothing};
    use super::super::postgres_jobs::schedules;
    use super::*;

    const DUAL_WRITES: [&str; 5] = [
        "scenarios/sql-dual-write-both-transactions-open.json",
        "scenarios/sql-dual-write-dedup-after-effect.json",
        "scenarios/sql-dual-write-dedup-before-effect.json",
        "scenarios/sql-dual-write-retry-dedup-commit.json",
        "scenarios/sql-dual-write-retry-main-commit.json",
    ];

    #[test]
    fn the_dual_writes_on_postgres_end_schedule_for_schedule_as_on_sqlite() {
        for file in DUAL_WRITES {
            let sqlite = schedules(file, "sqlite");
            assert!(sqlite.len() >= 17, "{file}: {} runs", sqlite.len());
            assert_eq!(schedules(file, "postgres"), sqlite, "{file}");
        }
    }

    #[test]
    fn crosscheck_kills_every_connection_of_the_consumer_with_its_process() {
        let tmp = tempfile::tempdir().unwrap();
        let file = "scenarios/sql-dual-write-both-transactions-open.json";
        let args = ["crosscheck", file, "--engine", "postgres", "--json"];
        let o = in_tmp(tmp.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        let v = json(&o);
        assert_eq!(v["summary"]["all_match"], true);
        assert!(v["runs"].as_array().unwrap().len() > 40);
        left_nothing(tmp.path());
        // A crash that committed what was open in both databases is caught.
        let wrong = [&args[..], &["--wrong-model", "keep-uncommitted"]].concat();
        let o = in_tmp(tmp.path(), &wrong);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        left_nothing(tmp.path());
    }

    #[test]
    fn a_second_consumer_waits_for_the_first_ones_key_in_the_named_database() {
        let file = "scenarios/postgres/dedup-database-keyed-two-consumers.json";
        let o = bin(&["explain", file, "--schedule", "0,0,1,1,1,1"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = stdout(&o);
        assert!(
            text.contains("PostgreSQL makes the statement wait"),
            "{text}"
        );
        assert!(text.contains("dedup.seen 1 row"), "{text}");
        // The first state is the setup's, read on the server.
        assert!(text.contains("stock 1 row"), "{text}");
        assert!(!text.contains("stock 0 rows"), "{text}");
    }

    /// A change to a scenario file.
    type Change = fn(&mut serde_json::Value);

    #[test]
    fn what_cannot_be_built_in_a_named_database_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let cases: [(&str, Change, &str); 3] = [
            (
                "a schema of the file's own by the same name",
                |f| {
                    let schema = f["store"]["schema"].as_array_mut().unwrap();
                    schema.push("CREATE SCHEMA dedup".into());
                },
                "store.databases.dedup",
            ),
            (
                "a statement PostgreSQL refuses",
                |f| f["store"]["databases"]["dedup"]["schema"][0] = "CREATE TABLE seen (".into(),
                "store.databases.dedup.schema[0]",
            ),
            (
                "a step on the named database that reads a main table",
                |f| f["protocol"]["steps"][2]["sql"] = "SELECT qty FROM stock".into(),
                "protocol.steps[2]",
            ),
        ];
        for (what, change, field) in cases {
            let mut file = dual_write_on_postgres("dedup");
            change(&mut file);
            let path = write(dir.path(), "named.json", &file.to_string());
            let o = bin(&["run", &path]);
            assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
            assert!(stderr(&o).contains(field), "{what}: {}", stderr(&o));
            assert!(!stderr(&o).contains("panicked"), "{what}: {}", stderr(&o));
        }
    }
}
