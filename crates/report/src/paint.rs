//! Colours for text reports: ANSI escapes when the caller says the output is a terminal
//! that accepts them, nothing otherwise.
//!
//! Whether to colour is decided once by the command line (stdout is a terminal and
//! `NO_COLOR` is unset or empty, <https://no-color.org>); reports only take a [`Paint`], so
//! tests and pipes, which never get colours, see exactly the plain text. Colour is applied
//! to text that is already laid out, never before padding, so columns stay aligned.

/// Paints text, or leaves it as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paint {
    on: bool,
}

impl Paint {
    /// No colours: what every test and every pipe gets.
    pub const OFF: Paint = Paint { on: false };

    pub fn new(on: bool) -> Paint {
        Paint { on }
    }

    /// Whether colours are wanted, given whether the output is a terminal and the value of
    /// `NO_COLOR`.
    pub fn wanted(terminal: bool, no_color: Option<&str>) -> bool {
        terminal && no_color.is_none_or(str::is_empty)
    }

    fn wrap(self, code: &str, text: &str) -> String {
        if self.on && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Something went wrong: a loss, a duplicate, a crash, a failed expectation.
    pub fn bad(self, text: &str) -> String {
        self.wrap("1;31", text)
    }

    /// Something held: once, exactly-once, expectations met.
    pub fn good(self, text: &str) -> String {
        self.wrap("32", text)
    }

    /// Worth a look, not a failure.
    pub fn warn(self, text: &str) -> String {
        self.wrap("33", text)
    }

    /// A heading.
    pub fn strong(self, text: &str) -> String {
        self.wrap("1", text)
    }

    /// Context: state lines under a step.
    pub fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_only_on_a_terminal_without_no_color() {
        assert!(Paint::wanted(true, None));
        assert!(Paint::wanted(true, Some("")));
        assert!(!Paint::wanted(true, Some("1")));
        assert!(!Paint::wanted(false, None));
        assert_eq!(Paint::OFF.bad("LOST"), "LOST");
        assert_eq!(Paint::new(true).bad("LOST"), "\x1b[1;31mLOST\x1b[0m");
    }
}
