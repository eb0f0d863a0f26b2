//! What can keep a scenario file from being read as the format's JSON: the file itself,
//! its size and encoding, its JSON, and the shape serde expected.

/// The file, or its text, could not be read as a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Read {
    /// The operating system refused the file.
    CannotRead {
        kind: std::io::ErrorKind,
        /// The operating system's own message, quoted.
        detail: String,
    },
    /// The file is over the size bound for a scenario.
    TooLong { bytes: usize, limit: usize },
    /// A byte that is not UTF-8.
    NotUtf8 { byte: u8 },
    /// serde or serde_json refused the text: serde gives its reason only as English text
    /// (`unknown field …`, `invalid type: …`), so it is kept as written and worded at the
    /// edge.
    Json {
        message: String,
        /// The field is one an earlier version of the format had (`expect.interleavings.
        /// complete`), and the message says what it is called now.
        renamed: bool,
    },
    /// An object names one key twice.
    DuplicateKey { key: String },
    /// A list where the format has an object.
    Shape(Shape),
}

/// A value of the wrong kind where the format has an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    ListForObject,
}
