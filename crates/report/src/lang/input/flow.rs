//! The words of [`problem::Flow`]: what is wrong in a protocol's branches and values (a
//! SQL step's `into`, `when`, `duplicate_if: {"when"}`, `goto` and `on_error`), with the
//! reasons a condition does not parse ([`ConditionError`]).

use super::Lang;
use crate::model::ConditionError;
use crate::scenario::problem::Flow;

pub(super) fn words(p: &Flow, lang: Lang) -> String {
    // Each half words its own variants and hands the others to the other half.
    match lang {
        Lang::En => values_en(p),
        Lang::Es => values_es(p),
    }
}

/// Names, conditions and the results they read, in English.
fn values_en(p: &Flow) -> String {
    match p {
        Flow::BadName { value } => format!(
            "`{value}` cannot be a name here: lower-case letters, digits and `_`, starting \
             with a letter, at most 40 characters"
        ),
        Flow::TooManyNames => "this process has interned too many distinct names".to_string(),
        Flow::BadCondition { condition, error } => format!(
            "the condition `{condition}` does not parse: {}",
            condition_en(error)
        ),
        Flow::UnknownResult {
            written,
            result,
            known,
        } => format!(
            "`{written}` names the result `{result}`, which no step keeps (a SQL step keeps \
             its row with `\"into\": \"{result}\"`); the results kept are: {}",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ),
        Flow::KeptLater { written, result } => format!(
            "`{written}` reads the result `{result}`, which a later step keeps; a step reads \
             only what the steps before it kept"
        ),
        Flow::NoSuchColumn {
            result,
            column,
            columns,
        } => format!(
            "the result `{result}` has no column `{column}`; its columns are {}",
            columns.join(", ")
        ),
        Flow::IntoWithoutRows => "`into` keeps the first row of the step's last statement, \
                                  and that statement returns no rows (a SELECT, or a write \
                                  with RETURNING, does)"
            .to_string(),
        _ => jumps_en(p),
    }
}

/// Names, conditions and the results they read, in Spanish.
fn values_es(p: &Flow) -> String {
    match p {
        Flow::BadName { value } => format!(
            "`{value}` no puede ser un nombre acá: letras minúsculas, dígitos y `_`, empezando \
             por una letra, 40 caracteres como mucho"
        ),
        Flow::TooManyNames => "este proceso ya registró demasiados nombres distintos".to_string(),
        Flow::BadCondition { condition, error } => format!(
            "la condición `{condition}` no se puede analizar: {}",
            condition_es(error)
        ),
        Flow::UnknownResult {
            written,
            result,
            known,
        } => format!(
            "`{written}` nombra el resultado `{result}`, que ningún paso guarda (un paso SQL \
             guarda su fila con `\"into\": \"{result}\"`); los resultados guardados son: {}",
            if known.is_empty() {
                "ninguno".to_string()
            } else {
                known.join(", ")
            }
        ),
        Flow::KeptLater { written, result } => format!(
            "`{written}` lee el resultado `{result}`, que lo guarda un paso posterior; un paso \
             lee solo lo que guardaron los pasos anteriores"
        ),
        Flow::NoSuchColumn {
            result,
            column,
            columns,
        } => format!(
            "el resultado `{result}` no tiene la columna `{column}`; sus columnas son {}",
            columns.join(", ")
        ),
        Flow::IntoWithoutRows => "`into` guarda la primera fila de la última sentencia del \
                                  paso, y esa sentencia no devuelve filas (un SELECT, o una \
                                  escritura con RETURNING, sí devuelve)"
            .to_string(),
        _ => jumps_es(p),
    }
}

/// `goto` and `on_error.continue_at`, in English.
fn jumps_en(p: &Flow) -> String {
    match p {
        Flow::GotoNowhere { target } => format!(
            "`{target}` is not one of the protocol's steps; `goto` names an earlier step by \
             its name"
        ),
        Flow::GotoAmbiguous { target, times } => format!(
            "`{target}` is written {times} times in the protocol's steps, so `goto` could mean \
             any of them; give the step it goes back to one place"
        ),
        Flow::GotoForward { target, at } => format!(
            "`goto` goes back to an earlier step, and `{target}` comes later (at \
             protocol.steps[{at}]); the protocol already goes on forward by itself"
        ),
        Flow::LoopRunsOnceStep { target, step } => format!(
            "the loop back to `{target}` would run `{step}` again, which a delivery runs once; \
             go back to a step after it"
        ),
        Flow::LoopUnbalanced { target } => format!(
            "the loop back to `{target}` begins or commits a transaction it does not also \
             commit or begin: each pass must leave the transactions as it found them"
        ),
        Flow::ContinueNotOnce { target } => format!(
            "`{target}` is not a step written once in the protocol's steps; the handler goes \
             on at a later step, named"
        ),
        Flow::ContinueNotAfter { target } => format!(
            "`{target}` does not come after the step; a handler goes on forward (`goto` goes \
             back)"
        ),
        Flow::ContinueTransactions { target, rollback } => match rollback {
            true => format!(
                "`{target}`: after the rollback no transaction is open, and at that step one \
                 is (its commit would close a transaction never begun)"
            ),
            false => format!(
                "`{target}`: without a rollback the transaction stays open, and at that step \
                 it is not (or another one is)"
            ),
        },
        _ => values_en(p),
    }
}

/// `goto` and `on_error.continue_at`, in Spanish.
fn jumps_es(p: &Flow) -> String {
    match p {
        Flow::GotoNowhere { target } => format!(
            "`{target}` no es uno de los pasos del protocolo; `goto` nombra un paso anterior \
             por su nombre"
        ),
        Flow::GotoAmbiguous { target, times } => format!(
            "`{target}` aparece {times} veces en los pasos del protocolo, así que `goto` podría \
             referirse a cualquiera; dejá el paso al que vuelve en un solo lugar"
        ),
        Flow::GotoForward { target, at } => format!(
            "`goto` vuelve a un paso anterior, y `{target}` viene después (en \
             protocol.steps[{at}]); el protocolo ya avanza solo"
        ),
        Flow::LoopRunsOnceStep { target, step } => format!(
            "la vuelta a `{target}` correría `{step}` otra vez, y una entrega lo corre una sola \
             vez; volvé a un paso posterior a ese"
        ),
        Flow::LoopUnbalanced { target } => format!(
            "la vuelta a `{target}` hace un `begin` o un `commit` sin su par: cada pasada tiene \
             que dejar las transacciones como las encontró"
        ),
        Flow::ContinueNotOnce { target } => format!(
            "`{target}` no es un paso que aparezca una sola vez en los pasos del protocolo; el \
             manejador sigue en un paso posterior, que se indica por su nombre"
        ),
        Flow::ContinueNotAfter { target } => format!(
            "`{target}` no viene después del paso; un manejador sigue hacia adelante (`goto` \
             vuelve hacia atrás)"
        ),
        Flow::ContinueTransactions { target, rollback } => match rollback {
            true => format!(
                "`{target}`: después del rollback no queda ninguna transacción abierta, y en \
                 ese paso hay una (su commit cerraría una transacción que nunca empezó)"
            ),
            false => format!(
                "`{target}`: sin rollback la transacción queda abierta, y en ese paso no lo \
                 está (o está abierta otra)"
            ),
        },
        _ => values_es(p),
    }
}

/// Why a condition does not parse, in English.
fn condition_en(e: &ConditionError) -> String {
    match e {
        ConditionError::TooLong { max } => format!("a condition has at most {max} characters"),
        ConditionError::Empty => "an empty condition".to_string(),
        ConditionError::AfterTheEnd { token } => {
            format!("unexpected `{token}` after a complete condition")
        }
        ConditionError::TooLarge { digits } => format!("{digits} does not fit a 64-bit integer"),
        ConditionError::Parameter { at } => format!(
            "a condition reads named results (`result.column`), not parameters (`:` at {at}): \
             test a parameter in the step's SQL, or keep it in a result first (`SELECT \
             :amount AS amount` with `into`)"
        ),
        ConditionError::Unexpected { found, at } => format!("unexpected `{found}` at {at}"),
        ConditionError::NoColumn { result } => format!("`{result}.` names no column"),
        ConditionError::NotAName { word } => format!(
            "`{word}` is neither a keyword nor a column: name a result's column as \
             `result.column` (the result a step stored with `into`)"
        ),
        ConditionError::OpenText { at } => format!("a text opened at {at} never closes"),
        ConditionError::TooDeep { max } => format!("nested deeper than {max} levels"),
        ConditionError::OpenParenthesis => "a `(` is never closed".to_string(),
        ConditionError::IsWithoutNull => "`is` is followed by `null` or `not null`".to_string(),
        ConditionError::NotAnOperand { found } => {
            format!("expected a column or a value, found `{found}`")
        }
        ConditionError::EndsEarly => {
            "the condition ends where a column or a value was expected".to_string()
        }
    }
}

/// Why a condition does not parse, in Spanish.
fn condition_es(e: &ConditionError) -> String {
    match e {
        ConditionError::TooLong { max } => {
            format!("una condición tiene como mucho {max} caracteres")
        }
        ConditionError::Empty => "la condición está vacía".to_string(),
        ConditionError::AfterTheEnd { token } => {
            format!("sobra `{token}` después de una condición completa")
        }
        ConditionError::TooLarge { digits } => format!("{digits} no entra en un entero de 64 bits"),
        ConditionError::Parameter { at } => format!(
            "una condición lee resultados con nombre (`result.column`), no parámetros (`:` en \
             la posición {at}): probá el parámetro en el SQL del paso, o guardalo antes en un \
             resultado (`SELECT :amount AS amount` con `into`)"
        ),
        ConditionError::Unexpected { found, at } => {
            format!("no se esperaba `{found}` en la posición {at}")
        }
        ConditionError::NoColumn { result } => format!("`{result}.` no nombra ninguna columna"),
        ConditionError::NotAName { word } => format!(
            "`{word}` no es una palabra clave ni una columna: nombrá la columna de un resultado \
             como `result.column` (el resultado que un paso guardó con `into`)"
        ),
        ConditionError::OpenText { at } => {
            format!("el texto que se abre en la posición {at} nunca se cierra")
        }
        ConditionError::TooDeep { max } => format!("anida más de {max} niveles"),
        ConditionError::OpenParenthesis => "un `(` nunca se cierra".to_string(),
        ConditionError::IsWithoutNull => "después de `is` va `null` o `not null`".to_string(),
        ConditionError::NotAnOperand { found } => {
            format!("se esperaba una columna o un valor, y vino `{found}`")
        }
        ConditionError::EndsEarly => {
            "la condición termina donde se esperaba una columna o un valor".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_that_does_not_parse_is_quoted_in_both_languages() {
        let p = Flow::BadCondition {
            condition: "claim.x < :amount".into(),
            error: ConditionError::Parameter { at: 11 },
        };
        assert_eq!(
            words(&p, Lang::En),
            "the condition `claim.x < :amount` does not parse: a condition reads named results \
             (`result.column`), not parameters (`:` at 11): test a parameter in the step's \
             SQL, or keep it in a result first (`SELECT :amount AS amount` with `into`)"
        );
        let es = words(&p, Lang::Es);
        assert_ne!(es, words(&p, Lang::En));
        for kept in [
            "`claim.x < :amount`",
            "`SELECT :amount AS amount`",
            "`into`",
        ] {
            assert!(es.contains(kept), "{es}");
        }
    }

    #[test]
    fn an_unknown_result_lists_the_kept_ones_or_none() {
        let p = |known: Vec<String>| Flow::UnknownResult {
            written: ":claim.count".into(),
            result: "claim".into(),
            known,
        };
        assert_eq!(
            words(&p(Vec::new()), Lang::En),
            "`:claim.count` names the result `claim`, which no step keeps (a SQL step keeps its \
             row with `\"into\": \"claim\"`); the results kept are: none"
        );
        let es = words(&p(vec!["state".into(), "seen".into()]), Lang::Es);
        assert!(
            es.ends_with("los resultados guardados son: state, seen"),
            "{es}"
        );
        assert!(es.contains("`\"into\": \"claim\"`"), "{es}");
    }

    #[test]
    fn a_loop_names_the_step_it_would_run_again() {
        let p = Flow::LoopRunsOnceStep {
            target: "claim".into(),
            step: crate::model::Step::Ack,
        };
        assert_eq!(
            words(&p, Lang::En),
            "the loop back to `claim` would run `ack` again, which a delivery runs once; go \
             back to a step after it"
        );
        let es = words(&p, Lang::Es);
        assert!(es.contains("`claim`") && es.contains("`ack`"), "{es}");
        assert_ne!(es, words(&p, Lang::En));
    }
}
