//! The scenario's own schema and SQL (issue 15): SQL steps in `protocol.steps`,
//! `store.schema` and `store.setup`, `workload.payloads` and `event_type`, and `check`.
//! Every statement is prepared against the schema when the file loads, so that a syntax
//! error, an unknown table or an unknown parameter exits 2 naming the step and the
//! statement, never later in a run.

use super::*;
use crate::consumer::CommitTimeoutStrategy;
use crate::model::{sql, DuplicateIf, SqlStep, SqlValue};
use crate::scenario::problem::Sql;
use crate::store::{CustomSchema, SqlChecker, StatementShape};
use std::collections::BTreeMap;

/// The field of `check.effects_per_event`'s SQL: the value itself on the main database,
/// its `sql` when it names another.
fn effects_field(db: u8) -> &'static str {
    match db {
        0 => "check.effects_per_event",
        _ => "check.effects_per_event.sql",
    }
}

/// The longest event type, in bytes.
const MAX_EVENT_TYPE: usize = 100;

/// The built-in steps a scenario's own schema has no tables for.
const LEDGER_STEPS: [Step; 4] = [
    Step::CheckInbox,
    Step::InsertInbox,
    Step::ApplyEffect,
    Step::EnqueueEmail,
];

impl Checker<'_> {
    /// Step `i` of a custom protocol written as a SQL step: its [`Step`], its definition
    /// added to `defs` (once per name). `{"name": "begin", "sql": "BEGIN"}` and its
    /// `commit` twin are the built-in transaction steps.
    pub(super) fn sql_step(
        &self,
        field: &str,
        raw: &RawSqlStep,
        db: u8,
        defs: &mut Vec<SqlStep>,
        origins: &mut Vec<SqlOrigin>,
    ) -> Result<Step, ScenarioError> {
        let field = field.to_string();
        let Some(sql) = &raw.sql else {
            return Err(self.err(format!("{field}.sql"), Sql::NeitherSqlNorExternal));
        };
        let statements = sql.statements();
        let list = matches!(sql, RawSql::Many(_));
        if statements.is_empty() || statements.len() > bounds::MAX_SQL_STATEMENTS {
            return Err(self.err(
                format!("{field}.sql"),
                Sql::StatementCount {
                    count: statements.len(),
                    max: bounds::MAX_SQL_STATEMENTS,
                },
            ));
        }
        for (j, s) in statements.iter().enumerate() {
            self.statement_text(&statement_field(&field, list, j), s)?;
        }
        let position = defs.len() + 1;
        let name = raw.name.clone().unwrap_or_else(|| format!("sql{position}"));
        if let Some(step) = transaction_step(&statements, &name) {
            return self.transaction_step_only(&field, list, raw, step);
        }
        let name = self.step_name(&field, &name)?;
        let def = self.flow_of(
            &field,
            raw,
            SqlStep {
                name,
                statements,
                duplicate_if: raw.duplicate_if.as_ref().and_then(RawDuplicateIf::named),
                db,
                ..SqlStep::default()
            },
        )?;
        self.define_once(field, list, def, defs, origins)?;
        Ok(Step::Sql(name))
    }

    /// A SQL step's name, checked and interned: crash points write it, so it is a plain
    /// word, and no built-in step's.
    fn step_name(&self, field: &str, name: &str) -> Result<&'static str, ScenarioError> {
        if !sql::valid_name(name) {
            let name = name.to_string();
            return Err(self.err(format!("{field}.name"), Sql::InvalidStepName { name }));
        }
        if Step::ALL.iter().any(|s| s.name() == name) {
            let name = name.to_string();
            return Err(self.err(format!("{field}.name"), Sql::BuiltInStepName { name }));
        }
        sql::intern(name).ok_or_else(|| self.err(format!("{field}.name"), Sql::TooManyStepNames))
    }

    /// Adds `def`, the SQL step written at `field`, to `defs` (and where it was written to
    /// `origins`) unless a step of its name is there already: a repeated step repeats its
    /// definition, so one defined differently is refused.
    fn define_once(
        &self,
        field: String,
        list: bool,
        def: SqlStep,
        defs: &mut Vec<SqlStep>,
        origins: &mut Vec<SqlOrigin>,
    ) -> Result<(), ScenarioError> {
        let name = def.name;
        match defs.iter().position(|d| d.name == name) {
            Some(k) if defs[k] != def => {
                return Err(self.err(
                    field,
                    Sql::DefinedDifferently {
                        name: name.to_string(),
                        first: origins[k].step.clone(),
                    },
                ))
            }
            Some(_) => {}
            None => {
                defs.push(def);
                origins.push(SqlOrigin {
                    name,
                    step: field,
                    list,
                });
            }
        }
        Ok(())
    }

    /// A SQL step written `BEGIN` or `COMMIT` is the built-in step, which keeps nothing,
    /// tests nothing and jumps nowhere.
    fn transaction_step_only(
        &self,
        field: &str,
        list: bool,
        raw: &RawSqlStep,
        step: Result<Step, Sql>,
    ) -> Result<Step, ScenarioError> {
        let flow = [
            ("duplicate_if", raw.duplicate_if.is_some()),
            ("into", raw.into.is_some()),
            ("when", raw.when.is_some()),
            ("goto", raw.goto.is_some()),
            ("on_error", raw.on_error.is_some()),
        ];
        match (step, flow.iter().find(|(_, set)| *set)) {
            (Ok(step), None) => Ok(step),
            (Ok(step), Some((key, _))) => {
                Err(self.err(format!("{field}.{key}"), Sql::TransactionStepFlow { step }))
            }
            (Err(why), _) => Err(self.err(statement_field(field, list, 0), why)),
        }
    }

    /// A statement's text within bounds, not blank.
    pub(super) fn statement_text(&self, field: &str, sql: &str) -> Result<(), ScenarioError> {
        if sql.trim().is_empty() {
            return Err(self.err(field, Sql::EmptyStatement));
        }
        if sql.len() > bounds::MAX_SQL_BYTES {
            return Err(self.err(
                field,
                Sql::StatementTooLong {
                    bytes: sql.len(),
                    limit: bounds::MAX_SQL_BYTES,
                },
            ));
        }
        Ok(())
    }

    /// The scenario's own database, checked whole: `Some` when `store.schema` is given.
    /// Fills `workload`'s payloads and event type.
    pub(super) fn custom_store(
        &self,
        raw: &RawScenario,
        protocol: &Protocol,
        origins: &[SqlOrigin],
        workload: &mut Workload,
    ) -> Result<Option<CustomSchema>, ScenarioError> {
        let Some(schema) = &raw.store.schema else {
            return self.no_custom_store(raw, origins).map(|()| None);
        };
        self.refuse_ledger_settings(raw, protocol)?;
        let named = self.named_databases(raw)?;
        let (effects, effects_db, effect_call) = self.effects_query(raw, &named, protocol)?;
        let (invariants, invariants_db) = self.invariants(raw, &named)?;
        for (list, name) in [
            (schema, "store.schema"),
            (&raw.store.setup, "store.setup"),
            (&invariants, "check.invariants"),
        ] {
            if list.len() > bounds::MAX_SCHEMA_STATEMENTS {
                return Err(self.err(
                    name,
                    Sql::TooManyStatements {
                        max: bounds::MAX_SCHEMA_STATEMENTS,
                    },
                ));
            }
            for (i, s) in list.iter().enumerate() {
                self.statement_text(&format!("{name}[{i}]"), s)?;
            }
        }
        if effect_call.is_none() {
            self.statement_text(effects_field(effects_db), &effects)?;
        }
        workload.payloads = self.payloads(&raw.workload.payloads)?;
        workload.event_type = self.event_type(raw.workload.event_type.as_deref())?;
        let mut custom = CustomSchema {
            schema: schema.clone(),
            setup: raw.store.setup.clone(),
            effects_per_event: effects,
            effect_call,
            effects_db,
            invariants,
            invariants_db,
            databases: named,
            reads_clock: false,
        };
        custom.reads_clock =
            self.prepare_every_statement(&custom, raw, protocol, origins, workload)?;
        Ok(Some(custom))
    }

    /// Builds every database of `custom` and prepares every statement against its own:
    /// the first that fails is named. Returns whether any may read the clock, as SQLite
    /// reports what each statement (and each column default) calls.
    fn prepare_every_statement(
        &self,
        custom: &CustomSchema,
        raw: &RawScenario,
        protocol: &Protocol,
        origins: &[SqlOrigin],
        workload: &Workload,
    ) -> Result<bool, ScenarioError> {
        let checkers = self.checkers(custom)?;
        let checker = &checkers[0];
        let samples = super::store::samples(raw.seed.unwrap_or(0), workload);
        for c in &checkers {
            c.set_samples(samples.clone());
        }
        let keys = payload_keys(&workload.payloads);
        let log = raw.broker.kind == Some(BrokerKind::Log);
        let mut reads_clock = (checker.default_functions().iter())
            .any(|f| crate::store::CLOCK_FUNCTIONS.contains(&f.as_str()));
        // The statements that change the main database's schema, for the question after.
        let mut changes = Vec::new();
        let mut kept = super::flow::Kept::default();
        for (at, o) in origins.iter().enumerate() {
            let def = protocol.sql_step(o.name);
            let on = &checkers[usize::from(def.db)];
            let shapes = self.sql_statements(on, def, o, &keys, log, (at, &kept))?;
            if let (Some(name), Some(last)) = (def.into, shapes.last()) {
                self.kept_row_fits(o, def, last)?;
                kept.keep(name, at, last.column_names.clone());
            }
            self.conditions_fit(o, def, at, &kept)?;
            reads_clock |= shapes.iter().any(StatementShape::may_read_clock);
            for (sql, shape) in def.statements.iter().zip(&shapes) {
                if shape.seen.changes_schema && def.db == 0 {
                    changes.push(sql.as_str());
                }
            }
        }
        // An effect that is an external call has no query to check.
        if custom.effect_call.is_none() {
            let effects = &custom.effects_per_event;
            let event_params = |p: &str| sql::EVENT_PARAMETERS.contains(&p) || keys.contains(p);
            let on = &checkers[usize::from(custom.effects_db)];
            let field = effects_field(custom.effects_db);
            let shape = self.check_query(on, field, effects, &event_params)?;
            reads_clock |= shape.may_read_clock();
            let seed = raw.seed.unwrap_or(0);
            self.effects_start_at_zero(on, &shape, seed, (field, effects), workload)?;
        }
        for (i, q) in custom.invariants.iter().enumerate() {
            let db = custom.invariant_db(i);
            let field = match db {
                0 => format!("check.invariants[{i}]"),
                _ => format!("check.invariants[{i}].sql"),
            };
            let shape = self.check_query(&checkers[usize::from(db)], &field, q, &|_| false)?;
            reads_clock |= shape.may_read_clock();
        }
        // A trigger, a view or a default a step creates may call the clock where the
        // schema the file starts with does not: each is created on a fresh copy, and the
        // main database's statements asked again. (A named database is never pruned.)
        if !reads_clock && !changes.is_empty() {
            let on_main = main_statements(custom, protocol);
            for change in changes {
                let scratch = self.checkers(custom)?.swap_remove(0);
                if scratch.reads_clock_after(change, &on_main) {
                    return Ok(true);
                }
            }
        }
        Ok(reads_clock)
    }

    /// `check.effects_per_event` names its event and counts 0 effects for every event of
    /// the scenario's seed before any delivery: a count that is not per event, or that the
    /// setup already satisfies, would call lost events "once".
    fn effects_start_at_zero(
        &self,
        checker: &SqlChecker,
        shape: &StatementShape,
        seed: u64,
        (field, effects): (&str, &str),
        workload: &Workload,
    ) -> Result<(), ScenarioError> {
        if shape.parameters.is_empty() {
            return Err(self.err(field, Sql::EffectsNameNoParameter));
        }
        let events = workload.events(seed);
        for (e, sql_event) in events.iter().zip(workload.sql_events(&events)) {
            let value = checker.value_before_any_delivery(effects, &sql_event);
            if value != "0" {
                let event = e.index;
                return Err(self.err(field, Sql::EffectsNotZero { value, event }));
            }
        }
        Ok(())
    }

    /// Without `store.schema`: SQL steps, checks, payloads and setup are refused.
    fn no_custom_store(
        &self,
        raw: &RawScenario,
        origins: &[SqlOrigin],
    ) -> Result<(), ScenarioError> {
        if let Some(o) = origins.first() {
            let step = o.name.to_string();
            return Err(self.err(o.step.clone(), Sql::StepWithoutSchema { step }));
        }
        self.refuse_set(
            &[
                ("store.setup", !raw.store.setup.is_empty()),
                ("store.databases", !raw.store.databases.is_empty()),
                ("check", raw.check.is_some()),
                ("workload.payloads", !raw.workload.payloads.is_empty()),
                ("workload.event_type", raw.workload.event_type.is_some()),
            ],
            Sql::NeedsOwnSchema,
        )
    }

    /// With the scenario's own schema, what configures the built-in ledger, its events or
    /// the producer is refused: none of it exists.
    fn refuse_ledger_settings(
        &self,
        raw: &RawScenario,
        protocol: &Protocol,
    ) -> Result<(), ScenarioError> {
        if let Some(at) = protocol.steps.iter().position(|s| LEDGER_STEPS.contains(s)) {
            let step = protocol.steps[at];
            return Err(self.err(format!("protocol.steps[{at}]"), Sql::LedgerStep { step }));
        }
        let (st, w) = (&raw.store, &raw.workload);
        self.refuse_set(
            &[
                ("store.inbox_unique", st.inbox_unique.is_some()),
                ("store.effect", st.effect.is_some()),
                (
                    "store.business_key_unique",
                    st.business_key_unique.is_some(),
                ),
                ("store.inbox_ttl_ticks", st.inbox_ttl_ticks.is_some()),
                (
                    "store.cleanup_every_ticks",
                    st.cleanup_every_ticks.is_some(),
                ),
                ("store.cleanup_batch", st.cleanup_batch.is_some()),
                ("store.out_of_order", st.out_of_order.is_some()),
                ("workload.accounts", w.accounts.is_some()),
                ("workload.amount_minor", w.amount_minor.is_some()),
                (
                    "workload.initial_balance_minor",
                    w.initial_balance_minor.is_some(),
                ),
                (
                    "workload.republish_altered",
                    !w.republish_altered.is_empty(),
                ),
                ("workload.invalid", !w.invalid.is_empty()),
                ("workload.lifecycle", w.lifecycle.is_some()),
                ("producer", raw.producer != RawProducer::default()),
                ("email", raw.email != RawEmail::default()),
                (
                    "faults.publish_timeout",
                    !raw.faults.publish_timeout.is_empty(),
                ),
                (
                    "consumer.on_commit_timeout",
                    raw.consumer.on_commit_timeout == Some(CommitTimeoutStrategy::Lookup),
                ),
                (
                    "consumer.completion_delay_ticks",
                    raw.consumer.completion_delay_ticks.is_some(),
                ),
            ],
            Sql::LedgerSetting,
        )
    }

    /// Every statement of SQL step `def`, prepared against the schema: their shapes.
    fn sql_statements(
        &self,
        checker: &SqlChecker,
        def: &SqlStep,
        origin: &SqlOrigin,
        keys: &std::collections::BTreeSet<String>,
        log: bool,
        (at, kept): (usize, &super::flow::Kept),
    ) -> Result<Vec<StatementShape>, ScenarioError> {
        let mut shapes = Vec::new();
        for (j, s) in def.statements.iter().enumerate() {
            let field = origin.field(j);
            let shape = self.prepared(checker, &field, s)?;
            for p in &shape.parameters {
                let p = p.as_str();
                if p.contains('.') {
                    self.kept_parameter(&field, p, at, kept)?;
                    continue;
                }
                if sql::LOG_PARAMETERS.contains(&p) && !log {
                    let parameter = p.to_string();
                    return Err(self.err(&field, Sql::LogParameterOnQueue { parameter }));
                }
                let known =
                    sql::DELIVERY_PARAMETERS.contains(&p) || sql::LOG_PARAMETERS.contains(&p);
                if !known && !keys.contains(p) {
                    let mut all = sql::DELIVERY_PARAMETERS.to_vec();
                    if log {
                        all.extend(sql::LOG_PARAMETERS);
                    }
                    return Err(self.unknown_parameter(&field, p, &all));
                }
            }
            if let Some(d) = def.duplicate_if {
                self.duplicate_if_fits(origin, def, d, &shape)?;
            }
            // The steps after it run on the schema it changes.
            if shape.seen.changes_schema {
                checker.apply(s);
            }
            shapes.push(shape);
        }
        Ok(shapes)
    }

    /// `duplicate_if` needs one statement that can say it: a write for a unique violation
    /// or no change, a query for a row.
    fn duplicate_if_fits(
        &self,
        origin: &SqlOrigin,
        def: &SqlStep,
        d: DuplicateIf,
        shape: &StatementShape,
    ) -> Result<(), ScenarioError> {
        let field = format!("{}.duplicate_if", origin.step);
        if def.statements.len() > 1 {
            return Err(self.err(field, Sql::DuplicateIfSeveral));
        }
        let untold = match d {
            DuplicateIf::Row => shape.columns == 0,
            DuplicateIf::UniqueViolation => shape.readonly,
            // Its own row count is what says "no change": an INSERT, UPDATE or DELETE's.
            DuplicateIf::NoChange => !shape.seen.writes_rows,
        };
        match untold {
            true => Err(self.err(field, Sql::DuplicateIfUntold { rule: d })),
            false => Ok(()),
        }
    }

    /// A check query: one column, only the parameters `allowed` accepts, and no writes.
    /// Its shape, for the checks that follow.
    fn check_query(
        &self,
        checker: &SqlChecker,
        field: &str,
        sql: &str,
        allowed: &dyn Fn(&str) -> bool,
    ) -> Result<StatementShape, ScenarioError> {
        let shape = self.prepared(checker, field, sql)?;
        if !shape.readonly {
            return Err(self.err(field, Sql::CheckWrites));
        }
        if shape.columns != 1 {
            let columns = shape.columns;
            return Err(self.err(field, Sql::CheckColumns { columns }));
        }
        match shape.parameters.iter().find(|p| !allowed(p)) {
            Some(p) => Err(self.unknown_parameter(field, p, &sql::EVENT_PARAMETERS)),
            None => Ok(shape),
        }
    }

    fn prepared(
        &self,
        checker: &SqlChecker,
        field: &str,
        sql: &str,
    ) -> Result<StatementShape, ScenarioError> {
        checker.prepare(sql).map_err(|reason| {
            let sql = one_line(sql);
            self.err(field, Sql::Unprepared { sql, reason })
        })
    }

    fn unknown_parameter(&self, field: &str, p: &str, known: &[&str]) -> ScenarioError {
        self.err(
            field,
            Sql::UnknownParameter {
                parameter: p.to_string(),
                known: known.iter().map(|k| k.to_string()).collect(),
                // A step's statement (the check queries have no delivery) may also read
                // what earlier steps keep.
                in_step: known.contains(&"delivery"),
            },
        )
    }

    /// `workload.payloads`: objects of integers and strings, named as parameters.
    fn payloads(
        &self,
        raw: &[serde_json::Map<String, serde_json::Value>],
    ) -> Result<Vec<BTreeMap<String, SqlValue>>, ScenarioError> {
        if raw.len() > bounds::MAX_PAYLOADS {
            return Err(self.err(
                "workload.payloads",
                Sql::TooManyPayloads {
                    max: bounds::MAX_PAYLOADS,
                },
            ));
        }
        let mut out = Vec::new();
        for (k, map) in raw.iter().enumerate() {
            if map.len() > bounds::MAX_PAYLOAD_FIELDS {
                return Err(self.err(
                    format!("workload.payloads[{k}]"),
                    Sql::TooManyPayloadFields {
                        max: bounds::MAX_PAYLOAD_FIELDS,
                    },
                ));
            }
            let mut fields = BTreeMap::new();
            for (name, v) in map {
                let field = format!("workload.payloads[{k}].{name}");
                let is_param = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                let taken = sql::DELIVERY_PARAMETERS.contains(&name.as_str())
                    || sql::LOG_PARAMETERS.contains(&name.as_str());
                if !is_param || taken {
                    let name = name.clone();
                    return Err(self.err(field, Sql::PayloadFieldName { name }));
                }
                let value = match v {
                    serde_json::Value::String(s) => SqlValue::Text(s.clone()),
                    serde_json::Value::Number(n) if n.is_i64() => {
                        SqlValue::Integer(n.as_i64().expect("checked"))
                    }
                    _ => return Err(self.err(field, Sql::PayloadValue)),
                };
                fields.insert(name.clone(), value);
            }
            out.push(fields);
        }
        Ok(out)
    }

    fn event_type(&self, raw: Option<&str>) -> Result<Option<String>, ScenarioError> {
        match raw {
            Some(t) if t.trim().is_empty() || t.len() > MAX_EVENT_TYPE => Err(self.err(
                "workload.event_type",
                Sql::EventTypeLength {
                    max: MAX_EVENT_TYPE,
                },
            )),
            other => Ok(other.map(str::to_string)),
        }
    }
}

/// Every statement that runs on the main database: its steps', its count of effects and
/// its invariants.
fn main_statements<'a>(custom: &'a CustomSchema, protocol: &'a Protocol) -> Vec<&'a str> {
    let steps = protocol.sql.iter().filter(|d| d.db == 0);
    let invariants = (custom.invariants.iter().enumerate())
        .filter(|(i, _)| custom.invariant_db(*i) == 0)
        .map(|(_, q)| q.as_str());
    (steps.flat_map(|d| d.statements.iter().map(String::as_str)))
        .chain((custom.effects_db == 0).then_some(custom.effects_per_event.as_str()))
        .chain(invariants)
        .collect()
}

/// The fields every payload has: the parameters a statement may name.
fn payload_keys(payloads: &[BTreeMap<String, SqlValue>]) -> std::collections::BTreeSet<String> {
    let Some(first) = payloads.first() else {
        return Default::default();
    };
    first
        .keys()
        .filter(|k| payloads.iter().all(|p| p.contains_key(*k)))
        .cloned()
        .collect()
}

/// `Some` when `statements` is one transaction statement: `Ok(Begin)` for `BEGIN` in a
/// step named `begin`, `Ok(Commit)` for `COMMIT` in one named `commit`, else the problem.
fn transaction_step(statements: &[String], name: &str) -> Option<Result<Step, Sql>> {
    let [only] = statements else { return None };
    let words: Vec<String> = only
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let step = match words.as_slice() {
        ["BEGIN"]
        | ["BEGIN", "TRANSACTION"]
        | ["BEGIN", "DEFERRED"]
        | ["BEGIN", "DEFERRED", "TRANSACTION"] => Step::Begin,
        ["COMMIT"] | ["COMMIT", "TRANSACTION"] | ["END"] | ["END", "TRANSACTION"] => Step::Commit,
        ["BEGIN", ..] => {
            return Some(Err(Sql::TransactionNotDeferred {
                words: words.join(" "),
            }))
        }
        _ => return None,
    };
    if name != step.name() {
        return Some(Err(Sql::TransactionStepName { step }));
    }
    Some(Ok(step))
}

/// `sql` on one line, shortened, as an error quotes it.
fn one_line(sql: &str) -> String {
    let line: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line,
    }
}
