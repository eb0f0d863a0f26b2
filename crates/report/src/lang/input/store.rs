//! The words of [`problem::Store`]: what is wrong in the scenario's `store` checks (the
//! inbox's settings and retention, out-of-order completions, the engine).
//!
//! PostgreSQL out of reach carries the store's own text of why (in English): it is quoted
//! as given.

use super::Lang;
use crate::scenario::problem::Store;

pub(super) fn words(p: &Store, lang: Lang) -> String {
    match lang {
        Lang::En => english(p),
        Lang::Es => spanish(p),
    }
}

fn english(p: &Store) -> String {
    match p {
        Store::NoInbox { protocol, steps } => format!(
            "configures the inbox, and protocol `{protocol}` has none (no `insert_inbox` or \
             `check_inbox` step); its steps are {steps}"
        ),
        Store::CleanupWithoutTtl => "configures the inbox cleanup job, which runs only with \
                                     `store.inbox_ttl_ticks`"
            .to_string(),
        Store::NotLifecycle => "applies to the lifecycle workload only (`workload.lifecycle`: \
                                true), where a TransferCompleted can arrive before its \
                                TransferCreated"
            .to_string(),
        Store::KeyedLogInOrder => "a log keyed by transfer_id or account_id delivers a \
                                   transfer's two events in order on one partition, so a \
                                   completion never arrives before its creation; set \
                                   `broker.key` to event_id to see it happen"
            .to_string(),
        Store::IsolationOnSqlite => "sets PostgreSQL's isolation level (here or with \
                                     --isolation), and this scenario runs on SQLite, which \
                                     lets one writer at a time commit (a second writer's stale \
                                     transaction fails with SQLITE_BUSY_SNAPSHOT); add \
                                     \"engine\": \"postgres\" (or --engine postgres)"
            .to_string(),
        Store::PostgresUnreachable { reason } => reason.clone(),
    }
}

fn spanish(p: &Store) -> String {
    match p {
        Store::NoInbox { protocol, steps } => format!(
            "configura el inbox, y el protocolo `{protocol}` no tiene (ningún paso \
             `insert_inbox` ni `check_inbox`); sus pasos son {steps}"
        ),
        Store::CleanupWithoutTtl => "configura la limpieza del inbox, que solo corre con \
                                     `store.inbox_ttl_ticks`"
            .to_string(),
        Store::NotLifecycle => "solo vale para el workload lifecycle (`workload.lifecycle`: \
                                true), donde un TransferCompleted puede llegar antes que su \
                                TransferCreated"
            .to_string(),
        Store::KeyedLogInOrder => "un log con clave transfer_id o account_id entrega en orden \
                                   los dos eventos de una transferencia, en una sola \
                                   partición, así que una finalización nunca llega antes que \
                                   su creación; poné `broker.key` en event_id para verlo pasar"
            .to_string(),
        Store::IsolationOnSqlite => "fija el nivel de aislamiento de PostgreSQL (acá o con \
                                     --isolation), y este escenario corre en SQLite, que deja \
                                     hacer commit a un solo escritor por vez (la transacción \
                                     desactualizada de un segundo escritor falla con \
                                     SQLITE_BUSY_SNAPSHOT); agregá \"engine\": \"postgres\" (o \
                                     --engine postgres)"
            .to_string(),
        Store::PostgresUnreachable { reason } => {
            format!("no se puede usar PostgreSQL: «{reason}»")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inbox_setting_without_an_inbox_names_the_protocol_and_its_steps() {
        let p = Store::NoInbox {
            protocol: "naive".into(),
            steps: "receive → begin → apply_effect → commit → ack".into(),
        };
        assert_eq!(
            words(&p, Lang::En),
            "configures the inbox, and protocol `naive` has none (no `insert_inbox` or \
             `check_inbox` step); its steps are receive → begin → apply_effect → commit → ack"
        );
        let es = words(&p, Lang::Es);
        assert_ne!(es, words(&p, Lang::En));
        for quoted in [
            "`naive`",
            "`insert_inbox`",
            "`check_inbox`",
            "receive → begin → apply_effect → commit → ack",
        ] {
            assert!(es.contains(quoted), "{es}");
        }
    }

    #[test]
    fn isolation_on_sqlite_says_how_to_run_on_postgres() {
        let es = words(&Store::IsolationOnSqlite, Lang::Es);
        assert!(es.contains("SQLITE_BUSY_SNAPSHOT"), "{es}");
        assert!(
            es.ends_with("agregá \"engine\": \"postgres\" (o --engine postgres)"),
            "{es}"
        );
    }
}
