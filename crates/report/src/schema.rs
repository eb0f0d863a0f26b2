//! The JSON Schemas of every document a command prints and of the scenario file, derived
//! from the very types serde writes and reads them with (schemars), so that a schema cannot
//! drift from the output. They are committed under `docs/schema/`, one file per document,
//! and a test regenerates them and compares.
//!
//! Every object of an output schema refuses fields it does not name
//! (`additionalProperties: false`): a field renamed in the output but not in the schema, or
//! the reverse, fails validation instead of passing unnoticed.

use super::crosscheck::CrosscheckJson;
use super::folder::FolderJson;
use super::json::{
    Document, ExploreJson, FindingJson, InterleavingsJson, MatrixJson, RunJson, SweepJson,
    TtlSearchJson,
};
use super::protocols::ProtocolsJson;
use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};

/// One committed schema: its file name under `docs/schema/`, and what it describes.
pub struct NamedSchema {
    /// `run.schema.json`, …
    pub file: String,
    pub schema: Schema,
}

/// The folder, relative to the repository, the schemas are committed in.
pub const FOLDER: &str = "docs/schema";

/// Every schema: the scenario file's, then one per output document.
pub fn all() -> Vec<NamedSchema> {
    let mut scenario = crate::scenario::file_schema();
    describe(
        &mut scenario,
        "delivery-sim scenario file",
        "A scenario file, as `run`, `explain`, `explore`, `sweep` and `crosscheck` read it.",
    );
    vec![
        NamedSchema {
            file: "scenario.schema.json".into(),
            schema: scenario,
        },
        output::<RunJson>(
            "run",
            "`run FILE --json`, and `replay TOKEN --json` (whose `checks` is absent).",
        ),
        output::<FolderJson<'static>>("run-folder", "`run DIR --json`."),
        output::<crate::explain::ExplainJson>(
            "explain",
            "`explain --json`: the told run, typed and in words.",
        ),
        output::<ExploreJson<'static>>("explore", "`explore --json` (crash points)."),
        output::<InterleavingsJson>("explore-interleavings", "`explore --interleavings --json`."),
        output::<super::json::LadderJson>(
            "explore-isolation-ladder",
            "`explore --isolation-ladder --json`.",
        ),
        output::<TtlSearchJson>(
            "explore-smallest-safe-ttl",
            "`explore --smallest-safe-ttl --json`.",
        ),
        output::<MatrixJson>(
            "matrix",
            "`matrix --json`, and `matrix.json` of `matrix --out-dir`.",
        ),
        output::<SweepJson<'static>>("sweep", "`sweep --json`."),
        output::<FindingJson<'static>>(
            "sweep-finding",
            "One line of `sweep --out FILE` (JSON Lines): one finding.",
        ),
        output::<CrosscheckJson<'static>>("crosscheck", "`crosscheck --json`."),
        output::<ProtocolsJson>("protocols", "`protocols --json`."),
        output::<super::bench::Figures>("bench", "`bench --json`."),
    ]
}

/// The schema of a document whose body is `T`, every object closed to unknown fields.
fn output<T: JsonSchema>(name: &'static str, what: &str) -> NamedSchema {
    let settings = SchemaSettings::draft2020_12()
        .for_serialize()
        .with_transform(RecursiveTransform(close));
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<Document<T>>();
    describe(&mut schema, &format!("delivery-sim {name} output"), what);
    NamedSchema {
        file: format!("{name}.schema.json"),
        schema,
    }
}

/// An object that names its properties names all of them.
fn close(schema: &mut Schema) {
    if let Some(object) = schema.as_object_mut() {
        if object.contains_key("properties") && !object.contains_key("additionalProperties") {
            object.insert("additionalProperties".into(), false.into());
        }
    }
}

fn describe(schema: &mut Schema, title: &str, description: &str) {
    schema.insert("title".into(), title.into());
    schema.insert("description".into(), description.into());
}

/// A schema as committed: pretty JSON, one newline at the end.
pub fn text(schema: &Schema) -> String {
    let mut s = serde_json::to_string_pretty(schema).expect("a schema serializes");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `UPDATE_SCHEMA=1 cargo test schema` rewrites them after a deliberate change.
    #[test]
    fn the_committed_schemas_are_the_types_own() {
        // The repository's docs/schema/, two folders above this crate.
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(FOLDER);
        let update = std::env::var_os("UPDATE_SCHEMA").is_some();
        let mut stale = Vec::new();
        for s in all() {
            let path = folder.join(&s.file);
            let generated = text(&s.schema);
            if update {
                std::fs::create_dir_all(&folder).unwrap();
                std::fs::write(&path, &generated).unwrap();
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(&generated) {
                stale.push(s.file.clone());
            }
        }
        assert!(
            stale.is_empty(),
            "{stale:?} under {FOLDER}/ differ from the types; rerun with UPDATE_SCHEMA=1 and \
             review the diff (a renamed or removed field bumps json::SCHEMA_VERSION)"
        );
        let committed: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        for name in committed {
            assert!(
                all().iter().any(|s| s.file == name),
                "{FOLDER}/{name} is no schema of this version"
            );
        }
    }

    #[test]
    fn every_output_object_refuses_unknown_fields() {
        for s in all().iter().skip(1) {
            let text = text(&s.schema);
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let mut open = Vec::new();
            find_open(&value, "", &mut open);
            assert!(open.is_empty(), "{}: open objects at {open:?}", s.file);
        }
    }

    fn find_open(v: &serde_json::Value, at: &str, open: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                if o.contains_key("properties")
                    && o.get("additionalProperties") != Some(&false.into())
                {
                    open.push(at.to_string());
                }
                for (k, v) in o {
                    find_open(v, &format!("{at}/{k}"), open);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    find_open(v, &format!("{at}/{i}"), open);
                }
            }
            _ => {}
        }
    }
}
