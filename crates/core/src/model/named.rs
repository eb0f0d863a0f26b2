//! Values passed between a protocol's steps, and conditions over them (issue 35).
//!
//! A SQL step with `"into": "claim"` keeps the first row its last statement returned,
//! column by column, under the name `claim`. A later statement binds a column as
//! `:claim.count`. A step's `"when"` (run it only if the condition holds) and
//! `"duplicate_if": {"when": …}` test those columns.
//!
//! Conditions are a small expression language, not scripting. They allow:
//! - columns `name.column`;
//! - integer and text literals, `null`, `true` and `false`;
//! - the comparisons `=`, `<>`, `<`, `>`, `<=` and `>=`;
//! - `and`, `or`, `not`, `is null`, `is not null`, and parentheses.
//!
//! Logic is SQL's three-valued logic: a comparison with `NULL` is unknown, and a step runs
//! only when its condition is true. A result whose query returned no row has every column
//! `NULL`, and so does a result no step has stored yet.

use super::value::Value;
use std::fmt;

/// The most characters a condition may have.
pub const MAX_CONDITION_CHARS: usize = 500;

/// The deepest nesting of parentheses and `not` a condition may have: the parser recurses
/// once per level.
const MAX_DEPTH: usize = 32;

/// A parsed condition, with the text it was written as (what it serializes to, and how
/// people see it).
#[derive(Clone, Debug)]
pub struct Condition {
    source: String,
    tree: Cond,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Cond {
    Or(Box<Cond>, Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    Compare(Operand, Op, Operand),
    IsNull(Operand, bool),
    /// A value alone: true when a non-zero number (SQL's truth of an integer).
    Truth(Operand),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Operand {
    Column { result: String, column: String },
    Integer(i64),
    Text(String),
    Null,
}

impl PartialEq for Condition {
    fn eq(&self, other: &Self) -> bool {
        self.tree == other.tree
    }
}

impl Eq for Condition {}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl serde::Serialize for Condition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.source)
    }
}

impl schemars::JsonSchema for Condition {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Condition".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A condition over named results: `claim.count > 0`, \
                `state.delivered is null and not state.consumed = 1`."
        })
    }
}

/// A named result's columns and values, in the order the statement returned them.
pub type Row = Vec<(String, Value)>;

/// The named results a consumer holds for the delivery in hand: each `into` name with the
/// row its step last stored (`None`: its query returned no row).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NamedResults {
    rows: Vec<(&'static str, Option<Row>)>,
}

impl NamedResults {
    /// Stores `row` under `name`, replacing what was there.
    pub fn store(&mut self, name: &'static str, row: Option<Row>) {
        match self.rows.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = row,
            None => {
                self.rows.push((name, row));
                self.rows.sort_by_key(|(n, _)| *n);
            }
        }
    }

    pub fn clear(&mut self) {
        self.rows.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The value of `result.column`: `NULL` for a result not stored, one whose query
    /// returned no row, or a column its row does not have.
    pub fn get(&self, result: &str, column: &str) -> Value {
        self.rows
            .iter()
            .find(|(n, _)| *n == result)
            .and_then(|(_, row)| row.as_ref())
            .and_then(|row| row.iter().find(|(c, _)| c == column))
            .map_or(Value::Null, |(_, v)| v.clone())
    }

    /// The value of a parameter named `result.column` (`None` for a name without a dot).
    pub fn parameter(&self, name: &str) -> Option<Value> {
        let (result, column) = name.split_once('.')?;
        Some(self.get(result, column))
    }

    /// Each stored name with its row, in name order (for the trace and for people).
    pub fn rows(&self) -> &[(&'static str, Option<Row>)] {
        &self.rows
    }
}

/// Results are state a run's future depends on: exploration's fingerprint hashes them, a
/// `Real` bit for bit.
impl std::hash::Hash for NamedResults {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.rows.len().hash(h);
        for (name, row) in &self.rows {
            name.hash(h);
            row.as_ref().map(Vec::len).hash(h);
            for (column, value) in row.iter().flatten() {
                column.hash(h);
                hash_value(value, h);
            }
        }
    }
}

fn hash_value<H: std::hash::Hasher>(v: &Value, h: &mut H) {
    use std::hash::Hash;
    match v {
        Value::Null => 0u8.hash(h),
        Value::Integer(i) => (1u8, i).hash(h),
        Value::Real(x) => (2u8, x.to_bits()).hash(h),
        Value::Text(s) => (3u8, s).hash(h),
        Value::Blob(b) => (4u8, b).hash(h),
    }
}

/// A kept row as people read it: `found = 1, state = 'new', done = NULL`.
pub fn show_row(row: &Row) -> String {
    let value = |v: &Value| match v {
        Value::Null => "NULL".to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Real(x) => format!("{x:?}"),
        Value::Text(s) => format!("'{}'", s.replace('\'', "''")),
        Value::Blob(b) => format!("a blob of {} bytes", b.len()),
    };
    (row.iter())
        .map(|(c, v)| format!("{c} = {}", value(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Condition {
    /// Parses `source`; the error says what is wrong and where.
    pub fn parse(source: &str) -> Result<Condition, ConditionError> {
        if source.chars().count() > MAX_CONDITION_CHARS {
            return Err(ConditionError::TooLong {
                max: MAX_CONDITION_CHARS,
            });
        }
        let tokens = lex(source)?;
        if tokens.is_empty() {
            return Err(ConditionError::Empty);
        }
        let mut p = Parser { tokens, at: 0 };
        let tree = p.or(0)?;
        match p.tokens.get(p.at) {
            None => Ok(Condition {
                source: source.trim().to_string(),
                tree,
            }),
            Some(t) => Err(ConditionError::AfterTheEnd {
                token: t.to_string(),
            }),
        }
    }

    /// The `result.column` pairs the condition reads, in order of first use.
    pub fn columns(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        self.tree.columns(&mut out);
        out
    }

    /// Whether the condition holds on `results` (unknown is not holding).
    pub fn holds(&self, results: &NamedResults) -> bool {
        self.tree.eval(results) == Some(true)
    }
}

/// Why a condition does not parse: which rule of the language it breaks, with the text
/// or the place (1-based, in characters) it breaks it at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConditionError {
    /// More than `max` characters.
    TooLong { max: usize },
    /// Nothing but blanks.
    Empty,
    /// A token after a condition already complete.
    AfterTheEnd { token: String },
    /// An integer literal past 64 bits.
    TooLarge { digits: String },
    /// A statement parameter (`:name`), which a condition cannot read.
    Parameter { at: usize },
    /// A character the language has no use for.
    Unexpected { found: char, at: usize },
    /// `result.` with no column after the dot.
    NoColumn { result: String },
    /// A word that is neither a keyword nor `result.column`.
    NotAName { word: String },
    /// A text literal whose quote never closes.
    OpenText { at: usize },
    /// Parentheses and `not` nested deeper than `max`.
    TooDeep { max: usize },
    /// A `(` without its `)`.
    OpenParenthesis,
    /// `is` not followed by `null` or `not null`.
    IsWithoutNull,
    /// A token where a column or a value belongs.
    NotAnOperand { found: String },
    /// The text ends where a column or a value belongs.
    EndsEarly,
}

impl Cond {
    fn columns(&self, out: &mut Vec<(String, String)>) {
        let mut operand = |o: &Operand| {
            if let Operand::Column { result, column } = o {
                let pair = (result.clone(), column.clone());
                if !out.contains(&pair) {
                    out.push(pair);
                }
            }
        };
        match self {
            Cond::Or(a, b) | Cond::And(a, b) => {
                a.columns(out);
                b.columns(out);
            }
            Cond::Not(a) => a.columns(out),
            Cond::Compare(a, _, b) => {
                operand(a);
                operand(b);
            }
            Cond::IsNull(a, _) | Cond::Truth(a) => operand(a),
        }
    }

    /// SQL's three-valued logic: `None` is unknown.
    fn eval(&self, r: &NamedResults) -> Option<bool> {
        match self {
            Cond::Or(a, b) => match (a.eval(r), b.eval(r)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            Cond::And(a, b) => match (a.eval(r), b.eval(r)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Cond::Not(a) => a.eval(r).map(|x| !x),
            Cond::IsNull(a, negated) => Some((a.value(r) == Value::Null) != *negated),
            Cond::Truth(a) => match a.value(r) {
                Value::Null => None,
                v => number(&v).map(|x| x != 0.0),
            },
            Cond::Compare(a, op, b) => {
                let ordering = compare(&a.value(r), &b.value(r))?;
                Some(match op {
                    Op::Eq => ordering.is_eq(),
                    Op::Ne => ordering.is_ne(),
                    Op::Lt => ordering.is_lt(),
                    Op::Gt => ordering.is_gt(),
                    Op::Le => ordering.is_le(),
                    Op::Ge => ordering.is_ge(),
                })
            }
        }
    }
}

impl Operand {
    fn value(&self, r: &NamedResults) -> Value {
        match self {
            Operand::Column { result, column } => r.get(result, column),
            Operand::Integer(i) => Value::Integer(*i),
            Operand::Text(s) => Value::Text(s.clone()),
            Operand::Null => Value::Null,
        }
    }
}

/// How `a` compares with `b`: numbers as numbers, texts as texts (byte order, as SQLite's
/// default collation); a text that reads as a number compares with a number as one
/// (PostgreSQL returns `numeric` as text); `None` (unknown) with a `NULL`, or for values
/// that do not compare.
fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Integer(x), Value::Integer(y)) => Some(x.cmp(y)),
        (Value::Text(x), Value::Text(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Value::Blob(x), Value::Blob(y)) => Some(x.cmp(y)),
        _ => number(a)?.partial_cmp(&number(b)?),
    }
}

/// `v` as a number, if it is one or a text that reads as one.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Real(x) => Some(*x),
        Value::Text(s) => s.trim().parse::<f64>().ok().filter(|x| x.is_finite()),
        Value::Null | Value::Blob(_) => None,
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Column(String, String),
    Word(String),
    Integer(i64),
    Text(String),
    Op(Op),
    Open,
    Close,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Column(r, c) => write!(f, "{r}.{c}"),
            Token::Word(w) => f.write_str(w),
            Token::Integer(i) => write!(f, "{i}"),
            Token::Text(s) => write!(f, "'{s}'"),
            Token::Op(op) => f.write_str(match op {
                Op::Eq => "=",
                Op::Ne => "<>",
                Op::Lt => "<",
                Op::Gt => ">",
                Op::Le => "<=",
                Op::Ge => ">=",
            }),
            Token::Open => f.write_str("("),
            Token::Close => f.write_str(")"),
        }
    }
}

const KEYWORDS: [&str; 7] = ["and", "or", "not", "is", "null", "true", "false"];

fn lex(source: &str) -> Result<Vec<Token>, ConditionError> {
    let cs: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < cs.len() {
        let c = cs[k];
        let start = k;
        k += 1;
        match c {
            c if c.is_whitespace() => {}
            '(' => out.push(Token::Open),
            ')' => out.push(Token::Close),
            '=' => out.push(Token::Op(Op::Eq)),
            '!' if cs.get(k) == Some(&'=') => {
                k += 1;
                out.push(Token::Op(Op::Ne));
            }
            '<' | '>' => {
                let op = match (c, cs.get(k)) {
                    ('<', Some('>')) => Op::Ne,
                    ('<', Some('=')) => Op::Le,
                    ('>', Some('=')) => Op::Ge,
                    ('<', _) => Op::Lt,
                    _ => Op::Gt,
                };
                k += usize::from(!matches!(op, Op::Lt | Op::Gt));
                out.push(Token::Op(op));
            }
            '\'' => {
                let (text, end) = text_literal(&cs, k, start)?;
                k = end;
                out.push(Token::Text(text));
            }
            c if c.is_ascii_digit()
                || (c == '-' && cs.get(k).is_some_and(char::is_ascii_digit)) =>
            {
                while cs.get(k).is_some_and(char::is_ascii_digit) {
                    k += 1;
                }
                let digits: String = cs[start..k].iter().collect();
                let n = digits
                    .parse()
                    .map_err(|_| ConditionError::TooLarge { digits })?;
                out.push(Token::Integer(n));
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let (token, end) = name_token(&cs, start)?;
                k = end;
                out.push(token);
            }
            ':' => return Err(ConditionError::Parameter { at: start + 1 }),
            other => {
                return Err(ConditionError::Unexpected {
                    found: other,
                    at: start + 1,
                })
            }
        }
    }
    Ok(out)
}

/// The name that starts at `start`: a result's column (`result.column`) or a keyword; and
/// where the lexer goes on.
fn name_token(cs: &[char], start: usize) -> Result<(Token, usize), ConditionError> {
    let word = |k: &mut usize| {
        let from = *k;
        while cs
            .get(*k)
            .is_some_and(|x| x.is_ascii_alphanumeric() || *x == '_')
        {
            *k += 1;
        }
        cs[from..*k].iter().collect::<String>()
    };
    let mut k = start;
    let first = word(&mut k);
    if cs.get(k) == Some(&'.') {
        k += 1;
        let column = word(&mut k);
        if column.is_empty() {
            return Err(ConditionError::NoColumn { result: first });
        }
        Ok((Token::Column(first, column), k))
    } else if KEYWORDS.contains(&first.to_ascii_lowercase().as_str()) {
        Ok((Token::Word(first.to_ascii_lowercase()), k))
    } else {
        Err(ConditionError::NotAName { word: first })
    }
}

/// The text literal whose opening quote is at `start`, read from `k` on: its text, and
/// where the lexer goes on (a doubled quote stays inside).
fn text_literal(
    cs: &[char],
    mut k: usize,
    start: usize,
) -> Result<(String, usize), ConditionError> {
    let mut text = String::new();
    loop {
        match (cs.get(k), cs.get(k + 1)) {
            (Some('\''), Some('\'')) => {
                text.push('\'');
                k += 2;
            }
            (Some('\''), _) => return Ok((text, k + 1)),
            (Some(ch), _) => {
                text.push(*ch);
                k += 1;
            }
            (None, _) => return Err(ConditionError::OpenText { at: start + 1 }),
        }
    }
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek_word(&self, w: &str) -> bool {
        matches!(self.tokens.get(self.at), Some(Token::Word(x)) if x == w)
    }

    fn or(&mut self, depth: usize) -> Result<Cond, ConditionError> {
        let mut left = self.and(depth)?;
        while self.peek_word("or") {
            self.at += 1;
            left = Cond::Or(Box::new(left), Box::new(self.and(depth)?));
        }
        Ok(left)
    }

    fn and(&mut self, depth: usize) -> Result<Cond, ConditionError> {
        let mut left = self.not(depth)?;
        while self.peek_word("and") {
            self.at += 1;
            left = Cond::And(Box::new(left), Box::new(self.not(depth)?));
        }
        Ok(left)
    }

    fn not(&mut self, depth: usize) -> Result<Cond, ConditionError> {
        if depth > MAX_DEPTH {
            return Err(ConditionError::TooDeep { max: MAX_DEPTH });
        }
        if self.peek_word("not") {
            self.at += 1;
            return Ok(Cond::Not(Box::new(self.not(depth + 1)?)));
        }
        if self.tokens.get(self.at) == Some(&Token::Open) {
            self.at += 1;
            let inner = self.or(depth + 1)?;
            if self.tokens.get(self.at) != Some(&Token::Close) {
                return Err(ConditionError::OpenParenthesis);
            }
            self.at += 1;
            return Ok(inner);
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Cond, ConditionError> {
        let left = self.operand()?;
        match self.tokens.get(self.at).cloned() {
            Some(Token::Op(op)) => {
                self.at += 1;
                Ok(Cond::Compare(left, op, self.operand()?))
            }
            Some(Token::Word(w)) if w == "is" => {
                self.at += 1;
                let negated = self.peek_word("not");
                self.at += usize::from(negated);
                if !self.peek_word("null") {
                    return Err(ConditionError::IsWithoutNull);
                }
                self.at += 1;
                Ok(Cond::IsNull(left, negated))
            }
            _ => Ok(Cond::Truth(left)),
        }
    }

    fn operand(&mut self) -> Result<Operand, ConditionError> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        Ok(match t {
            Some(Token::Column(result, column)) => Operand::Column { result, column },
            Some(Token::Integer(i)) => Operand::Integer(i),
            Some(Token::Text(s)) => Operand::Text(s),
            Some(Token::Word(w)) if w == "null" => Operand::Null,
            Some(Token::Word(w)) if w == "true" => Operand::Integer(1),
            Some(Token::Word(w)) if w == "false" => Operand::Integer(0),
            Some(other) => {
                return Err(ConditionError::NotAnOperand {
                    found: other.to_string(),
                })
            }
            None => return Err(ConditionError::EndsEarly),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results() -> NamedResults {
        let mut r = NamedResults::default();
        let row = vec![
            ("count".to_string(), Value::Integer(2)),
            ("state".to_string(), Value::Text("consumed".into())),
            ("done".to_string(), Value::Null),
            ("total".to_string(), Value::Text("12.50".into())),
        ];
        r.store(crate::model::sql::intern("claim").unwrap(), Some(row));
        r.store(crate::model::sql::intern("none").unwrap(), None);
        r
    }

    fn holds(c: &str) -> bool {
        Condition::parse(c).unwrap().holds(&results())
    }

    #[test]
    fn comparisons_and_logic_follow_sql() {
        for yes in [
            "claim.count > 0",
            "claim.count = 2 and claim.state = 'consumed'",
            "claim.count < 1 or claim.state <> 'new'",
            "not claim.count = 3",
            "claim.done is null",
            "claim.state is not null",
            "(claim.count >= 2) AND NOT (claim.count != 2)",
            "claim.total > 12",
            "none.anything is null",
            "claim.count",
            "claim.done is null or claim.done = 1",
        ] {
            assert!(holds(yes), "{yes}");
        }
        for no in [
            "claim.count > 2",
            "claim.done = 1",
            "not claim.done = 1",
            "claim.done <> 1",
            "none.x = 1 or none.x <> 1",
            "claim.state > 1",
            "claim.done",
        ] {
            assert!(!holds(no), "{no}");
        }
    }

    #[test]
    fn bad_conditions_say_what_is_wrong() {
        use ConditionError::*;
        let text = |s: &str| s.to_string();
        for (bad, why) in [
            ("", Empty),
            (
                "count > 0",
                NotAName {
                    word: text("count"),
                },
            ),
            ("claim.count >", EndsEarly),
            (
                "claim.count > 0 claim.x",
                AfterTheEnd {
                    token: text("claim.x"),
                },
            ),
            ("(claim.count > 0", OpenParenthesis),
            ("claim.x is 1", IsWithoutNull),
            ("claim.x = 'open", OpenText { at: 11 }),
            ("claim.x ; drop", Unexpected { found: ';', at: 9 }),
            ("claim.x < :amount", Parameter { at: 11 }),
            (
                "claim. = 1",
                NoColumn {
                    result: text("claim"),
                },
            ),
            (
                "99999999999999999999 = claim.x",
                TooLarge {
                    digits: text("99999999999999999999"),
                },
            ),
            ("claim.x = and", NotAnOperand { found: text("and") }),
        ] {
            assert_eq!(Condition::parse(bad).unwrap_err(), why, "{bad}");
        }
        let deep = format!("{}claim.x = 1{}", "(".repeat(40), ")".repeat(40));
        assert_eq!(
            Condition::parse(&deep).unwrap_err(),
            TooDeep { max: MAX_DEPTH }
        );
        let long = "claim.x = 1 and ".repeat(40) + "claim.x = 1";
        assert_eq!(
            Condition::parse(&long).unwrap_err(),
            TooLong {
                max: MAX_CONDITION_CHARS
            }
        );
    }

    #[test]
    fn a_condition_lists_its_columns_and_shows_as_written() {
        let c =
            Condition::parse(" claim.count > 0 and (state.x is null or claim.count < 9) ").unwrap();
        assert_eq!(
            c.columns(),
            [
                ("claim".into(), "count".into()),
                ("state".into(), "x".into())
            ]
        );
        assert_eq!(
            c.to_string(),
            "claim.count > 0 and (state.x is null or claim.count < 9)"
        );
    }

    #[test]
    fn results_hash_what_they_hold() {
        use std::hash::{Hash, Hasher};
        let digest = |r: &NamedResults| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            r.hash(&mut h);
            h.finish()
        };
        let a = results();
        let mut b = results();
        assert_eq!(digest(&a), digest(&b));
        b.store(crate::model::sql::intern("none").unwrap(), Some(Vec::new()));
        assert_ne!(digest(&a), digest(&b), "no row is not an empty row");
        assert_eq!(a.parameter("claim.count"), Some(Value::Integer(2)));
        assert_eq!(a.parameter("claim.missing"), Some(Value::Null));
        assert_eq!(a.parameter("count"), None);
    }
}
