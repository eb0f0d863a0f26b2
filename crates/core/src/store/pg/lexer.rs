//! Just enough of PostgreSQL's lexical rules to find a statement's words and its named
//! parameters (`:event_id`) outside string literals, quoted identifiers, dollar-quoted
//! bodies and comments, and to tell a parameter from a cast (`::uuid`).
//!
//! Parameters are bound by writing their values into the statement as literals, as many
//! drivers do on the client: a text value is a quoted literal (quotes doubled; PostgreSQL's
//! `standard_conforming_strings` is on by default and set on every connection), whose type
//! PostgreSQL infers from where it stands (`uuid`, `timestamptz`, `text`…), as it does for
//! an untyped parameter.

/// A piece of a statement that matters here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    Word(String),
    /// `:name`, a parameter.
    Parameter(String),
    Punct(char),
}

/// Calls `code` with the byte index of each character of `sql` that is neither in a
/// literal, a quoted identifier nor a comment.
fn walk(sql: &str, mut code: impl FnMut(usize, char)) {
    let b: Vec<(usize, char)> = sql.char_indices().collect();
    let mut k = 0;
    while k < b.len() {
        let (at, c) = b[k];
        let next = b.get(k + 1).map(|x| x.1);
        let end = match (c, next) {
            ('-', Some('-')) => (k..b.len()).find(|&j| b[j].1 == '\n').unwrap_or(b.len()),
            ('/', Some('*')) => skip_block_comment(&b, k),
            ('\'', _) => skip_quoted(&b, k, '\''),
            ('"', _) => skip_quoted(&b, k, '"'),
            ('$', _) => match dollar_tag(&b, k) {
                Some(tag) => skip_dollar(&b, k, &tag),
                None => {
                    code(at, c);
                    k += 1;
                    continue;
                }
            },
            _ => {
                code(at, c);
                k += 1;
                continue;
            }
        };
        k = end.max(k + 1);
    }
}

fn skip_block_comment(b: &[(usize, char)], k: usize) -> usize {
    let mut depth = 0;
    let mut j = k;
    while j < b.len() {
        match (b[j].1, b.get(j + 1).map(|x| x.1)) {
            ('/', Some('*')) => {
                depth += 1;
                j += 2;
            }
            ('*', Some('/')) => {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    return j;
                }
            }
            _ => j += 1,
        }
    }
    b.len()
}

/// The end of a literal or quoted identifier opened at `k` by `q` (a doubled `q` stays
/// inside; in an `E'…'` literal a backslash escapes the next character).
fn skip_quoted(b: &[(usize, char)], k: usize, q: char) -> usize {
    let escapes = q == '\'' && k > 0 && matches!(b[k - 1].1, 'e' | 'E');
    let mut j = k + 1;
    while j < b.len() {
        match b[j].1 {
            '\\' if escapes => j += 2,
            c if c == q && b.get(j + 1).map(|x| x.1) == Some(q) => j += 2,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// The tag of a dollar quote opening at `k` (`$$` or `$tag$`), if one does.
fn dollar_tag(b: &[(usize, char)], k: usize) -> Option<String> {
    // `$1` is a positional parameter, and `a$b` part of a word.
    if k > 0 && (b[k - 1].1.is_alphanumeric() || b[k - 1].1 == '_') {
        return None;
    }
    let mut tag = String::from("$");
    for &(_, c) in &b[k + 1..] {
        match c {
            '$' => {
                tag.push('$');
                return Some(tag);
            }
            c if c.is_alphanumeric() || c == '_' => {
                if tag.len() == 1 && c.is_ascii_digit() {
                    return None;
                }
                tag.push(c)
            }
            _ => return None,
        }
    }
    None
}

fn skip_dollar(b: &[(usize, char)], k: usize, tag: &str) -> usize {
    let t: Vec<char> = tag.chars().collect();
    let mut j = k + t.len();
    while j + t.len() <= b.len() {
        if (0..t.len()).all(|x| b[j + x].1 == t[x]) {
            return j + t.len();
        }
        j += 1;
    }
    b.len()
}

/// Each character of `sql` with whether it is code (not in a literal, a quoted identifier
/// or a comment).
fn code_chars(sql: &str) -> Vec<(usize, char, bool)> {
    // By byte offset: this runs for every statement a run sends.
    let mut code = vec![false; sql.len()];
    walk(sql, |at, _| code[at] = true);
    sql.char_indices()
        .map(|(at, c)| (at, c, code[at]))
        .collect()
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The statement's words (outside strings and comments), lower-cased, in order.
pub fn words(sql: &str) -> Vec<String> {
    (tokens(sql).iter())
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// The statement's code tokens: words, parameters, punctuation.
pub fn tokens(sql: &str) -> Vec<Token> {
    let cs = code_chars(sql);
    let code_at = |k: usize| cs.get(k).filter(|x| x.2).map(|x| x.1);
    let mut out = Vec::new();
    let mut k = 0;
    while k < cs.len() {
        let Some(c) = code_at(k) else {
            k += 1;
            continue;
        };
        let run = |from: usize| {
            let mut j = from;
            while code_at(j).is_some_and(word_char) {
                j += 1;
            }
            (j, cs[from..j].iter().map(|x| x.1).collect::<String>())
        };
        if c == ':' && code_at(k + 1) == Some(':') {
            out.extend([Token::Punct(':'), Token::Punct(':')]);
            k += 2;
        } else if c == ':' && code_at(k + 1).is_some_and(|n| n.is_alphabetic() || n == '_') {
            let j = parameter_end(&cs, k + 1);
            out.push(Token::Parameter(cs[k + 1..j].iter().map(|x| x.1).collect()));
            k = j;
        } else if word_char(c) {
            let (j, word) = run(k);
            out.push(Token::Word(word));
            k = j;
        } else {
            if !c.is_whitespace() {
                out.push(Token::Punct(c));
            }
            k += 1;
        }
    }
    out
}

/// The end of a parameter's name starting at `from` (after its `:`): a word, and a named
/// result's column after a dot (`:claim.count`).
fn parameter_end(cs: &[(usize, char, bool)], from: usize) -> usize {
    let code_at = |k: usize| cs.get(k).filter(|x| x.2).map(|x| x.1);
    let name_char = |n: char| n.is_alphanumeric() || n == '_';
    let mut j = from;
    while code_at(j).is_some_and(name_char) {
        j += 1;
    }
    if code_at(j) == Some('.') && code_at(j + 1).is_some_and(|n| n.is_alphabetic() || n == '_') {
        j += 1;
        while code_at(j).is_some_and(name_char) {
            j += 1;
        }
    }
    j
}

/// `sql` as SQLite prepares it: a named result's column `:claim.count` written
/// `:claim$count` (SQLite's parameter names may hold a `$`, not a `.`; payload fields and
/// delivery parameters never hold one, so the name reads back unambiguously).
pub fn sqlite_text(sql: &str) -> std::borrow::Cow<'_, str> {
    // Every statement a run sends comes here: most name no result, and are let through
    // without the walk over literals and comments.
    if !may_name_a_result(sql) {
        return std::borrow::Cow::Borrowed(sql);
    }
    let cs = code_chars(sql);
    let code_at = |k: usize| cs.get(k).filter(|x| x.2).map(|x| x.1);
    let mut out: Vec<char> = Vec::with_capacity(cs.len());
    let mut k = 0;
    while k < cs.len() {
        if code_at(k) == Some(':') && code_at(k + 1) == Some(':') {
            out.extend([':', ':']);
            k += 2;
        } else if code_at(k) == Some(':')
            && code_at(k + 1).is_some_and(|n| n.is_alphabetic() || n == '_')
        {
            let j = parameter_end(&cs, k + 1);
            out.extend(cs[k..j].iter().map(|x| if x.1 == '.' { '$' } else { x.1 }));
            k = j;
        } else {
            out.push(cs[k].1);
            k += 1;
        }
    }
    std::borrow::Cow::Owned(out.into_iter().collect())
}

/// Whether `sql` has a `:word.` anywhere (in a literal or a comment too): only then can it
/// name a result's column.
fn may_name_a_result(sql: &str) -> bool {
    let b = sql.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    (0..b.len()).any(|i| {
        b[i] == b':'
            && b.get(i + 1)
                .is_some_and(|&c| word(c) && !c.is_ascii_digit())
            && {
                let end = (i + 1..b.len()).find(|&j| !word(b[j])).unwrap_or(b.len());
                b.get(end) == Some(&b'.')
            }
    })
}

/// A parameter's name as SQLite reports it back (see [`sqlite_text`]): `claim.count`.
pub fn from_sqlite_name(name: &str) -> std::borrow::Cow<'_, str> {
    match name.contains('$') {
        true => std::borrow::Cow::Owned(name.replacen('$', ".", 1)),
        false => std::borrow::Cow::Borrowed(name),
    }
}

/// The named parameters `sql` uses, in order of first use.
pub fn parameters(sql: &str) -> Vec<String> {
    let mut names = Vec::new();
    for t in tokens(sql) {
        if let Token::Parameter(p) = t {
            if !names.contains(&p) {
                names.push(p);
            }
        }
    }
    names
}

/// A value to bind.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Integer(i64),
    Text(String),
    /// A Rust handler's values besides: `NULL`, a `float8`, a `bytea`.
    Null,
    Real(f64),
    Blob(Vec<u8>),
}

impl Literal {
    fn sql(&self) -> String {
        match self {
            Literal::Integer(i) => format!("({i})"),
            Literal::Text(s) => format!("'{}'", s.replace('\'', "''")),
            Literal::Null => "NULL".into(),
            // `{:?}` writes every finite value back exactly, and `NaN`, `inf` as words
            // PostgreSQL's float8 input reads (`'inf'`, `'NaN'`).
            Literal::Real(x) => format!("'{x:?}'::float8"),
            Literal::Blob(b) => {
                let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                format!("'\\x{hex}'::bytea")
            }
        }
    }
}

/// A parameter no value was given for: its name, with its `:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotBound(pub String);

impl std::fmt::Display for NotBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "parameter {} is not bound", self.0)
    }
}

impl From<NotBound> for String {
    fn from(n: NotBound) -> String {
        n.to_string()
    }
}

/// `sql` with each `:name` replaced by `value(name)` as a literal; the first name `value`
/// does not know is the error.
pub fn bind(sql: &str, value: &dyn Fn(&str) -> Option<Literal>) -> Result<String, NotBound> {
    let cs = code_chars(sql);
    let code_at = |k: usize| cs.get(k).filter(|x| x.2).map(|x| x.1);
    let mut out = String::with_capacity(sql.len() + 32);
    let mut k = 0;
    while k < cs.len() {
        let c = cs[k].1;
        if code_at(k) == Some(':') && code_at(k + 1) == Some(':') {
            out.push_str("::");
            k += 2;
        } else if code_at(k) == Some(':')
            && code_at(k + 1).is_some_and(|n| n.is_alphabetic() || n == '_')
        {
            let j = parameter_end(&cs, k + 1);
            let name: String = cs[k + 1..j].iter().map(|x| x.1).collect();
            let v = value(&name).ok_or_else(|| NotBound(format!(":{name}")))?;
            out.push_str(&v.sql());
            k = j;
        } else {
            out.push(c);
            k += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(name: &str) -> Option<Literal> {
        match name {
            "event_id" => Some(Literal::Text("e'1".into())),
            "qty" => Some(Literal::Integer(-2)),
            _ => None,
        }
    }

    #[test]
    fn parameters_are_bound_outside_literals_comments_and_casts() {
        let sql = "INSERT INTO t VALUES (:event_id::uuid, :qty, ':event_id', $$ :qty $$) -- :x";
        assert_eq!(
            bind(sql, &lit).unwrap(),
            "INSERT INTO t VALUES ('e''1'::uuid, (-2), ':event_id', $$ :qty $$) -- :x"
        );
        assert_eq!(parameters(sql), ["event_id", "qty"]);
        assert_eq!(
            bind("SELECT :nope", &lit).unwrap_err(),
            NotBound(":nope".into())
        );
        assert_eq!(
            parameters("SELECT a[1:2], x::text FROM t /* :y */"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_named_result_s_column_is_one_parameter_on_both_engines() {
        let sql = "UPDATE t SET n = :claim.count + 1 WHERE id = :event_id AND s = ':a.b' -- :c.d";
        assert_eq!(parameters(sql), ["claim.count", "event_id"]);
        assert_eq!(
            sqlite_text(sql),
            "UPDATE t SET n = :claim$count + 1 WHERE id = :event_id AND s = ':a.b' -- :c.d"
        );
        assert_eq!(from_sqlite_name("claim$count"), "claim.count");
        let plain = "SELECT t.n FROM t WHERE t.id = :event_id AND x > 1.5";
        assert!(matches!(sqlite_text(plain), std::borrow::Cow::Borrowed(_)));
        assert_eq!(sqlite_text("SELECT :a.b"), "SELECT :a$b");
        assert_eq!(parameters("SELECT :t.x::int, :u."), ["t.x", "u"]);
        let bound = bind("SELECT :claim.count", &|n| {
            (n == "claim.count").then_some(Literal::Null)
        });
        assert_eq!(bound.unwrap(), "SELECT NULL");
    }

    #[test]
    fn words_skip_strings_and_identifiers() {
        let t = tokens("SELECT \"now\", 'x' FROM t WHERE a = E'\\'' AND now()");
        let words: Vec<_> = t
            .iter()
            .filter_map(|t| match t {
                Token::Word(w) => Some(w.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            words,
            ["SELECT", "FROM", "t", "WHERE", "a", "E", "AND", "now"]
        );
    }
}
