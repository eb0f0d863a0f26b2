//! The words of [`problem::Workload`]: what is wrong in the scenario's `protocol`,
//! `workload` and `producer` sections, with the reasons a list of steps is not a protocol
//! ([`ProtocolError`], whose English is its `Display`, which the built-in protocols' check
//! prints too).

use super::value::actor_es;
use super::Lang;
use crate::model::{Protocol, ProtocolError, Step};
use crate::scenario::problem::Workload;

pub(super) fn words(p: &Workload, lang: Lang) -> String {
    // Each half words its own variants and hands the others to the other half.
    match lang {
        Lang::En => protocol_en(p),
        Lang::Es => protocol_es(p),
    }
}

/// The `protocol` section, in English.
fn protocol_en(p: &Workload) -> String {
    match p {
        Workload::UnknownProtocol { name } => format!(
            "unknown protocol `{name}`; the built-in protocols are {} (or give an object \
             {{\"name\", \"steps\"}})",
            Protocol::built_in_names()
        ),
        Workload::NamelessProtocol => "a custom protocol needs a name".to_string(),
        Workload::Protocol(e) => e.to_string(),
        Workload::UnknownStep { name } => format!(
            "unknown step `{name}`; the steps are {}, or a SQL step {{\"name\", \"sql\"}} on \
             the scenario's own schema",
            Step::allowed_names()
        ),
        Workload::NoSuchDatabase { name, databases } => match databases.as_slice() {
            [] => format!(
                "no database is called `{name}`: the scenario has no `store.databases`, only \
                 the main database (leave `db` out)"
            ),
            _ => format!(
                "no database is called `{name}`; the scenario's databases are main, {}",
                databases.join(", ")
            ),
        },
        _ => workload_en(p),
    }
}

/// The `protocol` section, in Spanish.
fn protocol_es(p: &Workload) -> String {
    match p {
        Workload::UnknownProtocol { name } => format!(
            "protocolo desconocido `{name}`; los protocolos que trae la herramienta son {} (o \
             escribí un objeto {{\"name\", \"steps\"}})",
            Protocol::built_in_names()
        ),
        Workload::NamelessProtocol => "un protocolo propio necesita un nombre".to_string(),
        Workload::Protocol(e) => protocol_error_es(e),
        Workload::UnknownStep { name } => format!(
            "paso desconocido `{name}`; los pasos son {}, o un paso SQL {{\"name\", \"sql\"}} \
             sobre el esquema propio del escenario",
            Step::allowed_names()
        ),
        Workload::NoSuchDatabase { name, databases } => match databases.as_slice() {
            [] => format!(
                "ninguna base de datos se llama `{name}`: el escenario no tiene \
                 `store.databases`, solo la base principal (sacá `db`)"
            ),
            _ => format!(
                "ninguna base de datos se llama `{name}`; las bases del escenario son main, {}",
                databases.join(", ")
            ),
        },
        _ => workload_es(p),
    }
}

/// The `workload` and `producer` sections, in English.
fn workload_en(p: &Workload) -> String {
    match p {
        Workload::TooManyRepublishes { max } => format!("at most {max} republishes"),
        Workload::TooManyAlteredRepublishes { max } => {
            format!("at most {max} altered republishes")
        }
        Workload::InvalidTwice => {
            "an event is listed twice; each invalid event is named once".to_string()
        }
        Workload::OddLifecycle { events } => format!(
            "{events} is odd; with `lifecycle` each transfer is two events (TransferCreated, \
             TransferCompleted), so the count must be even"
        ),
        Workload::AlteredCopyTooLarge {
            altered,
            largest,
            max,
        } => format!(
            "an event altered {altered} times has a copy of {largest} minor units (the k-th \
             altered copy carries k + 1 times workload.amount_minor), over the {max} a \
             payload may carry; fewer altered copies of one event, or a smaller amount"
        ),
        Workload::BalanceOverflow { max_steps, largest } => format!(
            "{max_steps} steps in each of the two phases, each able to apply a payload of up \
             to {largest} minor units to one account, could take a balance past the 64-bit \
             range ({}); lower limits.max_steps or workload.amount_minor",
            i64::MAX
        ),
        Workload::LifecycleWithProducer => "a transfer's two events are published by the \
            `direct` producer only: a producer process makes one request per transfer, and \
            answers the completion's from the transfer it already committed, so the completion \
            would never be published; remove `producer.mode` or `lifecycle`"
            .to_string(),
        Workload::AlteredWithProducer => "altered copies are published by the `direct` \
            producer only: a producer process publishes the transfer it committed (or its \
            outbox row), so it has no other payload to send; remove `producer.mode` or the \
            altered copies"
            .to_string(),
        Workload::DirectProducerSetting => "the `direct` producer has no process and no \
            database; set `producer.mode` to commit_then_publish, publish_then_commit or outbox"
            .to_string(),
        Workload::IdentityBudget {
            budget,
            room,
            events,
            all,
        } => format!(
            "under `per_attempt` every publication after an intent's first mints a new \
             event, and this scenario's faults and republications allow {budget} of them \
             (crashes, publish timeouts, republish entries), over the {room} new events that \
             fit beside its {events} ({all} events in all, twice MAX_EVENTS); lower \
             `faults.publish_timeout[].times`, the crash budgets or the republish lists"
        ),
        _ => protocol_en(p),
    }
}

/// The `workload` and `producer` sections, in Spanish.
fn workload_es(p: &Workload) -> String {
    match p {
        Workload::TooManyRepublishes { max } => format!("como mucho {max} republicaciones"),
        Workload::TooManyAlteredRepublishes { max } => {
            format!("como mucho {max} republicaciones alteradas")
        }
        Workload::InvalidTwice => {
            "un evento aparece dos veces; cada evento inválido se nombra una sola vez".to_string()
        }
        Workload::OddLifecycle { events } => format!(
            "{events} es impar; con `lifecycle` cada transferencia son dos eventos \
             (TransferCreated, TransferCompleted), así que la cantidad tiene que ser par"
        ),
        Workload::AlteredCopyTooLarge {
            altered,
            largest,
            max,
        } => format!(
            "un evento alterado {altered} veces tiene una copia de {largest} unidades menores \
             (la k-ésima copia alterada lleva k + 1 veces workload.amount_minor), más de las \
             {max} que puede llevar un payload; poné menos copias alteradas de un mismo \
             evento, o un monto menor"
        ),
        Workload::BalanceOverflow { max_steps, largest } => format!(
            "{max_steps} pasos en cada una de las dos fases, cada uno capaz de aplicarle a una \
             cuenta un payload de hasta {largest} unidades menores, podrían llevar un saldo \
             fuera del rango de 64 bits ({}); bajá limits.max_steps o workload.amount_minor",
            i64::MAX
        ),
        Workload::LifecycleWithProducer => "los dos eventos de una transferencia los publica \
            solo el productor `direct`: un proceso productor hace un pedido por transferencia, \
            y al de la finalización lo contesta con la transferencia a la que ya le hizo \
            commit, así que la finalización nunca se publicaría; sacá `producer.mode` o \
            `lifecycle`"
            .to_string(),
        Workload::AlteredWithProducer => "las copias alteradas las publica solo el productor \
            `direct`: un proceso productor publica la transferencia a la que le hizo commit (o \
            su fila del outbox), así que no tiene otro payload para mandar; sacá \
            `producer.mode` o las copias alteradas"
            .to_string(),
        Workload::DirectProducerSetting => "el productor `direct` no tiene proceso ni base de \
            datos; poné `producer.mode` en commit_then_publish, publish_then_commit u outbox"
            .to_string(),
        Workload::IdentityBudget {
            budget,
            room,
            events,
            all,
        } => format!(
            "con `per_attempt` cada publicación de una intención después de la primera crea \
             un evento nuevo, y las fallas y republicaciones de este escenario permiten \
             {budget} (caídas, timeouts de publicación, entradas de republish), más que los \
             {room} eventos nuevos que entran junto a sus {events} ({all} eventos en total, el \
             doble de MAX_EVENTS); bajá `faults.publish_timeout[].times`, los presupuestos de \
             caídas o las listas de republish"
        ),
        _ => protocol_es(p),
    }
}

/// Why a list of steps is not a protocol, in Spanish.
fn protocol_error_es(e: &ProtocolError) -> String {
    match e {
        ProtocolError::Empty => "un protocolo necesita al menos un paso".to_string(),
        ProtocolError::TooLong { len, max } => {
            format!("un protocolo tiene como mucho {max} pasos, y este tiene {len}")
        }
        ProtocolError::ReceiveNotFirst { found } => {
            format!("el primer paso tiene que ser `receive`, y es `{found}`")
        }
        ProtocolError::Repeated {
            step,
            first,
            second,
        } => format!(
            "el paso `{step}` aparece dos veces (en las posiciones {first} y {second}); \
             `receive`, `ack` y `produce_output` pueden aparecer una vez cada uno (una entrega \
             se recibe, se confirma con ack y produce su salida una sola vez), los demás pasos \
             se pueden repetir"
        ),
        ProtocolError::CommitWithoutBegin { at } => {
            format!("el `commit` en la posición {at} no tiene un `begin` antes")
        }
        ProtocolError::BeginWithoutCommit { at } => format!(
            "el `begin` en la posición {at} no tiene un `commit` después, así que la \
             transacción no terminaría nunca"
        ),
        ProtocolError::NestedBegin { at, open } => format!(
            "el `begin` en la posición {at} está dentro de la transacción abierta en la \
             posición {open}; hacé commit de esa primero (SQLite no tiene transacciones \
             anidadas)"
        ),
        ProtocolError::NoEffect => "el protocolo no tiene paso `apply_effect`, ni paso SQL, ni \
            llamada externa, así que no tiene ningún efecto de negocio para verificar"
            .to_string(),
        _ => protocol_error_more_es(e),
    }
}

/// The rest of [`protocol_error_es`]: steps that are not the consumer's, SQL steps and
/// databases.
fn protocol_error_more_es(e: &ProtocolError) -> String {
    match e {
        ProtocolError::NotAConsumerStep { step, at, actor } => format!(
            "`{step}` en la posición {at} es un paso del {}, no del consumidor; el productor y \
             los relays se configuran en la sección `producer` del escenario",
            actor_es(*actor)
        ),
        ProtocolError::UndefinedSql { at, name } => format!(
            "el paso SQL `{name}` en la posición {at} no está definido exactamente una vez en \
             el protocolo"
        ),
        ProtocolError::UnusedSql { name } => {
            format!("el paso SQL `{name}` está definido pero no se usa en los pasos del protocolo")
        }
        ProtocolError::CommitOnOtherDatabase { at } => format!(
            "el `commit` en la posición {at} no cierra ninguna transacción en su base: la que \
             está abierta es de otra base (cada base tiene sus propias transacciones; un \
             `commit` cierra la de la base que nombra su `db`)"
        ),
        ProtocolError::PolicyStep { step, at } => format!(
            "`{step}` en la posición {at} no es un paso que un protocolo liste: lo corre una \
             política de error (`on_error`: {{\"then\": \"dead_letter\"}})"
        ),
        ProtocolError::EnqueueOutsideTransaction { at } => format!(
            "`enqueue_email` en la posición {at} tiene que estar dentro de la transacción \
             (después de `begin`, antes de `commit`): la fila del outbox se commitea junto con \
             el efecto o no se commitea"
        ),
        _ => protocol_error_es(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_database_is_worded_with_or_without_the_scenarios_databases() {
        let p = |databases: Vec<String>| Workload::NoSuchDatabase {
            name: "ledger".into(),
            databases,
        };
        assert_eq!(
            words(&p(Vec::new()), Lang::En),
            "no database is called `ledger`: the scenario has no `store.databases`, only the \
             main database (leave `db` out)"
        );
        assert_eq!(
            words(&p(vec!["audit".into(), "mail".into()]), Lang::En),
            "no database is called `ledger`; the scenario's databases are main, audit, mail"
        );
        let es = words(&p(Vec::new()), Lang::Es);
        assert!(
            es.contains("`ledger`") && es.contains("`store.databases`"),
            "{es}"
        );
        assert!(es.contains("(sacá `db`)"), "{es}");
    }

    #[test]
    fn a_protocol_error_keeps_its_english_display_and_has_its_spanish() {
        let e = ProtocolError::NotAConsumerStep {
            step: Step::Publish,
            at: 2,
            actor: crate::model::StepActor::Producer,
        };
        let p = Workload::Protocol(e.clone());
        assert_eq!(words(&p, Lang::En), e.to_string());
        assert_eq!(
            words(&p, Lang::Es),
            "`publish` en la posición 2 es un paso del productor, no del consumidor; el \
             productor y los relays se configuran en la sección `producer` del escenario"
        );
    }

    #[test]
    fn the_direct_producer_setting_names_the_modes_as_the_tool_prints_them() {
        let p = Workload::DirectProducerSetting;
        assert_eq!(
            words(&p, Lang::En),
            "the `direct` producer has no process and no database; set `producer.mode` to \
             commit_then_publish, publish_then_commit or outbox"
        );
        let es = words(&p, Lang::Es);
        for kept in [
            "`direct`",
            "`producer.mode`",
            "commit_then_publish",
            "publish_then_commit",
        ] {
            assert!(es.contains(kept), "{es}");
        }
    }
}
