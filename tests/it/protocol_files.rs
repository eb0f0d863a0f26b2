//! The built-in protocols are data (`protocols/*.json`, issue 15): each file is a scenario's
//! `protocol` plus its `crash_guarantee`, and read as a user's protocol (by the scenario
//! loader, the same engine as every scenario file) it is the very protocol the tool ships.

use crate::support::root;
use delivery_sim::model::built_ins;
use delivery_sim::{Protocol, Scenario};
use serde_json::{json, Value};

#[test]
fn every_protocol_file_is_the_built_in_protocol_read_as_a_users_protocol() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("protocols"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut listed: Vec<String> = built_ins()
        .iter()
        .map(|b| format!("{}.json", b.name))
        .collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "every file under protocols/ is a built-in protocol"
    );
    for b in built_ins() {
        let text =
            std::fs::read_to_string(root().join("protocols").join(format!("{}.json", b.name)))
                .unwrap();
        let mut file: Value = serde_json::from_str(&text).unwrap();
        let claim = file
            .as_object_mut()
            .unwrap()
            .remove("crash_guarantee")
            .unwrap();
        assert_eq!(claim, serde_json::to_value(b.crash_guarantee).unwrap());
        let scenario = json!({"name": "from-file", "protocol": file});
        let s = Scenario::from_json(&scenario.to_string(), "protocol file").unwrap();
        assert_eq!(
            Some(s.protocol.clone()),
            Protocol::built_in(&b.name),
            "{}",
            b.name
        );
        assert_eq!(s.protocol.known_crash_guarantee(), Some(b.crash_guarantee));
    }
}
