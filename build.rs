//! Compiles the scenario files of `scenarios/` into the binary, for `serve`'s editor (its
//! examples are one click away without the checkout): `$OUT_DIR/examples.rs` lists each
//! file's name and text, in name order.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenarios/ is in the crate")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = String::from("&[\n");
    for path in &files {
        let name = path.file_stem().expect("a file name").to_string_lossy();
        let _ = writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    out.push_str("]\n");
    let target =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("examples.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}
