//! A protocol's external calls (`{"external": "<service>"}`): the step's form, its name
//! against the protocol's other steps, and `check.effect`'s service.

use super::*;
use crate::model::Scope;

impl Checker<'_> {
    /// The external call at `field`: a step that only names its service. The service names
    /// the step (a crash point writes `before:topup`), so it obeys a step name's rules.
    pub(super) fn call_step(&self, field: &str, raw: &RawSqlStep) -> Result<Step, ScenarioError> {
        let service = raw.external.as_deref().unwrap_or_default();
        let RawSqlStep {
            name,
            sql,
            external: _,
            duplicate_if,
            db,
            into,
            when,
            goto,
            on_error,
        } = raw;
        let present = [
            ("name", name.is_some()),
            ("sql", sql.is_some()),
            ("duplicate_if", duplicate_if.is_some()),
            ("db", db.is_some()),
            ("into", into.is_some()),
            ("when", when.is_some()),
            ("goto", goto.is_some()),
            ("on_error", on_error.is_some()),
        ];
        if let Some((extra, _)) = present.iter().find(|(_, given)| *given) {
            let why = match *extra {
                "name" => format!(
                    "an external call is named by the service it calls (its crash points are \
                     `before:{service}` and `after:{service}`): leave `name` out"
                ),
                "sql" => "a step is a SQL step {\"name\", \"sql\"} or an external call \
                          {\"external\"}, not both"
                    .to_string(),
                other => format!(
                    "`{other}` means nothing on an external call: the call runs no SQL, keeps \
                     no row and cannot be skipped, looped or caught; write the decision in a \
                     SQL step before it (a `duplicate_if` there ends the delivery before the \
                     call)"
                ),
            };
            return Err(self.err(format!("{field}.{extra}"), why));
        }
        let field = format!("{field}.external");
        if !crate::model::sql::valid_name(service) {
            return Err(self.err(
                field,
                format!(
                    "`{service}` cannot name a service: it names the step, and crash points \
                     write it (`after:{service}`), so it is lower-case letters, digits and `_`, \
                     starting with a letter, at most 40 characters"
                ),
            ));
        }
        if Step::ALL.iter().any(|s| s.name() == service) {
            return Err(self.err(
                field,
                format!(
                    "`{service}` is a built-in step's name, and a crash point must name one \
                     step; call the service something else"
                ),
            ));
        }
        crate::model::sql::intern(service)
            .map(Step::Call)
            .ok_or_else(|| {
                self.err(
                    field,
                    "this process has interned too many distinct step names",
                )
            })
    }

    /// No SQL step is named as a service the protocol calls: a crash point names one step.
    pub(super) fn calls_fit(&self, protocol: &Protocol) -> Result<(), ScenarioError> {
        for (at, step) in protocol.steps.iter().enumerate() {
            if let Step::Sql(name) = step {
                if protocol.has(Step::Call(name)) {
                    return Err(self.err(
                        format!("protocol.steps[{at}].name"),
                        format!(
                            "`{name}` names both this SQL step and an external call's \
                             service; a crash point such as `before:{name}` must name one \
                             step, so rename one of them"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `check.effect: {"external": service}`: a service the protocol calls.
    pub(super) fn effect_call(
        &self,
        service: &str,
        protocol: &Protocol,
    ) -> Result<String, ScenarioError> {
        let calls = protocol.calls();
        if calls.contains(&service) {
            return Ok(service.to_string());
        }
        Err(self.err(
            "check.effect.external",
            match calls.as_slice() {
                [] => format!(
                    "no step of the protocol calls `{service}`: the protocol calls no external \
                     service (a step {{\"external\": \"{service}\"}} would)"
                ),
                _ => format!(
                    "no step of the protocol calls `{service}`; it calls {}",
                    calls.join(", ")
                ),
            },
        ))
    }
}

impl Checker<'_> {
    /// `expect.boundaries.call` (and an explore entry's) names the calls boundary: there
    /// must be exactly one, the calls to the one service that is not the business effect.
    pub(super) fn call_expectations_fit(
        &self,
        e: &crate::scenario::Expect,
        protocol: &Protocol,
        custom: Option<&crate::store::CustomSchema>,
    ) -> Result<(), ScenarioError> {
        let effect = custom.and_then(|c| c.effect());
        let services: Vec<&str> = (protocol.calls().into_iter())
            .filter(|s| effect != Some(crate::model::Effect::External(s)))
            .collect();
        let fields = (e.boundaries.contains_key(&Scope::Call))
            .then(|| "expect.boundaries.call".to_string())
            .into_iter()
            .chain(
                (e.explore.iter().enumerate())
                    .filter(|(_, x)| x.boundaries.contains_key(&Scope::Call))
                    .map(|(i, _)| format!("expect.explore[{i}].boundaries.call")),
            );
        for field in fields {
            let why = match services.as_slice() {
                [_] => continue,
                [] => "the protocol calls no external service besides the business effect, so \
                       the run has no calls boundary"
                    .to_string(),
                many => format!(
                    "the protocol calls {} services ({}), each its own boundary; `call` would \
                     not say which (expect the headline verdict, or call one service)",
                    many.len(),
                    many.join(", ")
                ),
            };
            return Err(self.err(field, why));
        }
        Ok(())
    }
}
