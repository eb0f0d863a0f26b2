//! A protocol's external calls (`{"external": "<service>"}`): the step's form, its name
//! against the protocol's other steps, and `check.effect`'s service.

use super::*;
use crate::model::Scope;
use crate::scenario::problem::Call;

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
                "name" => Call::Named {
                    service: service.to_string(),
                },
                "sql" => Call::SqlAndExternal,
                other => Call::FlowKey {
                    key: other.to_string(),
                },
            };
            return Err(self.err(format!("{field}.{extra}"), why));
        }
        let field = format!("{field}.external");
        if !crate::model::sql::valid_name(service) {
            let service = service.to_string();
            return Err(self.err(field, Call::InvalidService { service }));
        }
        if Step::ALL.iter().any(|s| s.name() == service) {
            let service = service.to_string();
            return Err(self.err(field, Call::BuiltInName { service }));
        }
        crate::model::sql::intern(service)
            .map(Step::Call)
            .ok_or_else(|| self.err(field, Call::TooManyNames))
    }

    /// No SQL step is named as a service the protocol calls: a crash point names one step.
    pub(super) fn calls_fit(&self, protocol: &Protocol) -> Result<(), ScenarioError> {
        for (at, step) in protocol.steps.iter().enumerate() {
            if let Step::Sql(name) = step {
                if protocol.has(Step::Call(name)) {
                    let name = name.to_string();
                    let field = format!("protocol.steps[{at}].name");
                    return Err(self.err(field, Call::NameTaken { name }));
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
            Call::EffectNotCalled {
                service: service.to_string(),
                calls: calls.iter().map(|c| c.to_string()).collect(),
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
                [] => Call::NoCallsBoundary,
                many => Call::ManyCallsBoundaries {
                    services: many.iter().map(|s| s.to_string()).collect(),
                },
            };
            return Err(self.err(field, why));
        }
        Ok(())
    }
}
