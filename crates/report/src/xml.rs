//! Escaping for XML 1.0, the one place that knows it: the JUnit report and the SVG diagram
//! both write scenario names, verdicts and messages a user controls.
//!
//! What XML 1.0 cannot carry at all (most control characters, even as references) is
//! dropped, so that a scenario name with a stray control character still gives a file
//! every parser reads.

/// Text content: `&`, `<` and `>` escaped.
pub fn text(s: &str) -> String {
    escape(s, false)
}

/// An attribute value in double or single quotes: also both quotes escaped, and line
/// breaks and tabs as character references (a parser would otherwise turn them into
/// spaces).
pub fn attr(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().filter(|&c| allowed(c)) {
        match (c, attribute) {
            ('&', _) => out.push_str("&amp;"),
            ('<', _) => out.push_str("&lt;"),
            ('>', _) => out.push_str("&gt;"),
            ('"', true) => out.push_str("&quot;"),
            ('\'', true) => out.push_str("&apos;"),
            ('\n', true) => out.push_str("&#10;"),
            ('\r', true) => out.push_str("&#13;"),
            ('\t', true) => out.push_str("&#9;"),
            (c, _) => out.push(c),
        }
    }
    out
}

/// The characters of XML 1.0's `Char` production.
fn allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_markup_and_keeps_quotes_and_breaks() {
        assert_eq!(text("a<b>&\"c'\n\td"), "a&lt;b&gt;&amp;\"c'\n\td");
    }

    #[test]
    fn attributes_escape_quotes_and_breaks_as_references() {
        assert_eq!(
            attr("a\"b'c\nd\re\tf&"),
            "a&quot;b&apos;c&#10;d&#13;e&#9;f&amp;"
        );
    }

    #[test]
    fn characters_xml_cannot_carry_are_dropped() {
        assert_eq!(text("a\u{0}b\u{1b}c\u{FFFE}d"), "abcd");
        assert_eq!(attr("x\u{7}y"), "xy");
        assert_eq!(text("é✓\u{1F600}"), "é✓\u{1F600}");
    }
}
