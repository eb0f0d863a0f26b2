//! A refused command line, as data: which flag, path or value, and which rule it broke,
//! with the numbers and names the rule involves. Nothing here is a sentence: a `String` is
//! a flag, a path, a name or the text the user gave, or the operating system's (or
//! PostgreSQL's) own message, quoted. `lang::input` words each variant.

use crate::model::{Step, StepActor};
use delivery_sim_crosscheck::Unfit;

/// A command line the tool refuses: a flag out of its range or meaningless where it is
/// given, a path that is not what the command takes, a file it cannot write, a check over
/// the tool's bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Usage {
    /// `flag` was given `value`, outside `min..=max`.
    OutOfRange {
        flag: String,
        value: u64,
        min: u64,
        max: u64,
    },
    /// `flag` was given `text`, which is not written as `form`.
    Unparsed {
        flag: String,
        text: String,
        form: Form,
    },
    /// `flag` means nothing where it is given, for `why`.
    FlagRefused { flag: String, why: FlagWhy },
    /// `flag` cannot be used with `run DIR` on `folder`: it would apply to every file.
    FolderRefuses {
        flag: String,
        folder: String,
        why: FolderWhy,
    },
    /// A crash point given on the command line (`flag`: `--crash`, or the `crash` a served
    /// story takes) that the scenario cannot reach.
    Crash { flag: String, why: CrashWhy },
    /// A command that would go over the tool's bounds (time, memory, runs).
    Budget(Budget),
    /// An engine flag that does not fit the scenario, or PostgreSQL not ready.
    Engine(EngineUse),
    /// `path` is a folder, and `command` takes one scenario file.
    IsAFolder { path: String, command: FileCommand },
    /// `run PATH`: there is neither a file nor a folder at `path`.
    NoSuchPath { path: String },
    /// `run DIR`: the folder at `path` holds no `*.json` file.
    EmptyFolder { path: String },
    /// `run DIR`: the folder at `path` cannot be listed.
    CannotReadFolder { path: String, io: Io },
    /// `flag`'s file or folder (`path`, when the message names it) cannot be written or
    /// made.
    CannotWrite {
        flag: String,
        path: Option<String>,
        act: Act,
        io: Io,
    },
    /// Standard output cannot be written.
    CannotWriteStdout { io: Io },
    /// `serve --port`: the port cannot be listened on.
    CannotListen { port: u16, io: Io },
    /// `--out path` on `command`, which writes a folder (`--out-dir`).
    OutForAFolder { path: String, command: String },
    /// `--protocol name`: no built-in protocol of that name; `known` lists them, as
    /// `a, b, c`.
    UnknownProtocol { name: String, known: String },
    /// A scheduling choice of `source` names alternative `choice` of a decision that has
    /// `alternatives`.
    NoSuchChoice {
        source: ChoiceSource,
        choice: u32,
        alternatives: u32,
    },
    /// `crosscheck` on `name` (a path, or `--protocol P`) cannot run it with one real
    /// process.
    CrosscheckUnfit { name: String, why: Unfit },
    /// `crosscheck` cannot find its own binary to run as the consumer process.
    NoOwnBinary { io: Io },
}

/// How a flag's text is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `--schedule`: `0,1,1`.
    Choices,
    /// `--seeds`: `A..B`, `A < B`.
    SeedRange,
}

/// Why a flag means nothing where it is given (`cli::flags`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlagWhy {
    /// `--events` with a file, which sets `workload.events`.
    EventsInFile,
    /// A shrinking flag with `--no-shrink`.
    NoShrink,
    /// A diagram's flag without `--diagram`.
    OnlyWithDiagram,
    /// An engine flag with `--isolation-ladder`, which runs them all.
    LadderChoosesNone,
    /// An interleavings flag without `--interleavings`.
    OnlyWithInterleavings,
    /// A crash exploration's flag with `--interleavings`.
    CrashOnly,
    /// `--expect` with `--smallest-safe-ttl`, which states no guarantee.
    TtlSearchStatesNone,
    /// `--schedule` on `scenario`, which has one consumer.
    OneConsumer { scenario: String },
    /// `--interleavings` on `scenario`, which has one consumer.
    OneOrder { scenario: String },
    /// `--inbox-ttl-ticks` on `protocol`, which has no inbox; `steps` as `a → b`.
    NoInbox { protocol: String, steps: String },
    /// `--smallest-safe-ttl` on `scenario`, which has no inbox retention.
    NoRetention { scenario: String },
}

/// Why `run DIR` refuses a flag that chooses how one scenario runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderWhy {
    Crash,
    Schedule,
    Trace,
    InboxTtl,
    Diagram,
    Html,
    Seed,
    Expect,
}

/// Why a crash point given on the command line is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CrashWhy {
    /// `count` points, over `max`.
    TooMany { count: usize, max: u32 },
    /// The text is not a crash point: `detail` is the parser's reason, and `steps` the
    /// protocol's own steps (`a → b`) when it declares SQL steps.
    Unparsed {
        detail: crate::model::PointError,
        steps: Option<String>,
    },
    /// `step` is `actor`'s, and the scenario runs no such actor.
    OtherActor { step: Step, actor: StepActor },
    /// `protocol` has no `step`; its steps are `steps` (`a → b`).
    NoStep {
        protocol: String,
        step: Step,
        steps: String,
    },
    /// The step's occurrence is never reached: `detail` says why, as the scenario's
    /// checker words it.
    NeverReached { detail: crate::scenario::Unreached },
    /// Event `event` does not exist; the last is `last`.
    NoEvent { event: usize, last: usize },
}

/// A command that would go over the tool's bounds. `scenario` is a scenario's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Budget {
    /// An exploration to `depth` may need `estimate` schedules, over `limit`
    /// (`--max-schedules`, at most `ceiling`).
    Schedules {
        scenario: String,
        events: usize,
        depth: usize,
        estimate: u128,
        limit: u64,
        ceiling: u64,
    },
    /// An exploration's first level would keep `mib` MiB of runs, over `budget_mib`.
    KeptRuns {
        scenario: String,
        events: usize,
        depth: usize,
        mib: u128,
        budget_mib: u64,
    },
    /// An exploration may take `steps` steps (`per_schedule` in each of `estimate`), over
    /// `max`.
    ExploreSteps {
        scenario: String,
        depth: usize,
        estimate: u128,
        per_schedule: u128,
        steps: u128,
        max: u128,
    },
    /// `--interleavings --with-crashes` may need `estimate` runs, over `limit`
    /// (`--max-interleavings`, at most `ceiling`).
    CrashedInterleavings {
        scenario: String,
        estimate: u128,
        max_preemptions: usize,
        limit: u64,
        ceiling: u64,
    },
    /// `--interleavings` would keep `kept` choices (`interleavings` runs of `decisions`
    /// decisions), over `max`.
    InterleavingChoices {
        scenario: String,
        decisions: u128,
        interleavings: u128,
        kept: u128,
        max: u128,
    },
    /// `--smallest-safe-ttl` would explore up to `candidates` TTLs to `depth`, `steps` in
    /// all, over `max`.
    TtlSearchSteps {
        scenario: String,
        depth: usize,
        candidates: u128,
        steps: u128,
        max: u128,
    },
    /// `crosscheck` on `name` would take `estimate` real steps (`runs` points of about
    /// `steps`), over `max`.
    CrosscheckSteps {
        name: String,
        runs: u128,
        steps: u64,
        estimate: u128,
        max: u128,
    },
    /// `--seeds`: `seeds` runs, over `max`.
    Seeds { seeds: u64, max: u64 },
    /// `--schedule`: more than `max` choices.
    ScheduleChoices { max: usize },
}

/// An engine flag that does not fit, or the PostgreSQL server that is not ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineUse {
    /// `--isolation` on a built-in protocol, which runs on SQLite.
    IsolationOnSqlite,
    /// `--database-url` on `scenario`, which runs on SQLite.
    DatabaseUrlOnSqlite { scenario: String },
    /// `flag` (PostgreSQL's) on `matrix`, which runs on SQLite.
    MatrixOnSqlite { flag: String },
    /// The PostgreSQL server could not be reached or started: `detail` is the reason, as
    /// the PostgreSQL engine gives it.
    NotReady { detail: String },
}

/// The command a folder was given to, which takes one scenario file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileCommand {
    /// `explain`, which tells one run.
    Explain,
    /// `explore`, `sweep` and the others that read one file.
    OneFile,
}

/// What a file or folder a flag names was to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Write,
    Create,
}

/// Where a scheduling choice came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChoiceSource {
    /// `--schedule`.
    Schedule,
    /// A replay token's schedule.
    Token,
}

/// What the operating system answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Io {
    pub kind: std::io::ErrorKind,
    /// The operating system's own message, quoted.
    pub detail: String,
}

impl From<std::io::Error> for Io {
    fn from(e: std::io::Error) -> Io {
        Io::from(&e)
    }
}

impl From<&std::io::Error> for Io {
    fn from(e: &std::io::Error) -> Io {
        Io {
            kind: e.kind(),
            detail: e.to_string(),
        }
    }
}

impl From<Budget> for Usage {
    fn from(b: Budget) -> Usage {
        Usage::Budget(b)
    }
}

impl From<EngineUse> for Usage {
    fn from(e: EngineUse) -> Usage {
        Usage::Engine(e)
    }
}
