//! What the argument parser refused, as data: clap finds the fault (an unknown flag, a
//! value not among the possible ones, a missing argument) and the command line takes its
//! context out, so that `lang::input` can word it in Spanish too. clap's own English is
//! kept for the kinds it has no context for.

/// A command line clap could not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentError {
    pub fault: ArgumentFault,
    /// Close names to suggest (`--depth` for `--deph`).
    pub suggested: Vec<String>,
    /// The command's usage line, without its `Usage: ` lead.
    pub usage: Option<String>,
}

/// What is wrong on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgumentFault {
    UnknownArgument {
        arg: String,
    },
    /// A flag given without its value.
    MissingValue {
        arg: String,
    },
    /// A value not among `valid` (empty when any value of a type is taken).
    InvalidValue {
        arg: String,
        value: String,
        valid: Vec<String>,
    },
    /// A value its parser refused, with the parser's own reason.
    Unparsed {
        arg: String,
        value: String,
        reason: String,
    },
    MissingRequired {
        args: Vec<String>,
    },
    /// A flag that cannot be given with `with` (or given twice, when `with` is itself).
    Conflict {
        arg: String,
        with: Vec<String>,
    },
    Repeated {
        arg: String,
    },
    UnknownCommand {
        name: String,
    },
    MissingCommand {
        name: String,
        valid: Vec<String>,
    },
    /// A value more than the flag takes.
    ExtraValue {
        arg: String,
        value: String,
    },
    /// A kind the parser gave no context for: its own words.
    Other {
        said: String,
    },
}
