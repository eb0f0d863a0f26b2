//! The pages in a real browser (feature `browser`, which `.ci/run` turns on after installing
//! Debian's chromium and `tests/browser`'s playwright-core): `tests/browser/pages.mjs`
//! opens a freshly written matrix page from disk and clicks through it as a learner would,
//! `tests/browser/serve.mjs` does the same with `serve`'s playground, and both save the
//! screenshots the README shows under `results/screenshots/`.

use super::support::*;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Output;

/// Runs `tests/browser/SCRIPT` with `target` and a screenshot folder.
fn node(script: &str, target: impl AsRef<OsStr>, shots: &std::path::Path) -> Output {
    let browser = root().join("tests/browser");
    assert!(
        browser.join("node_modules/playwright-core").is_dir(),
        "run `npm ci` in tests/browser first (.ci/run does)"
    );
    command("node")
        .arg(browser.join(script))
        .arg(target)
        .arg(shots)
        .output()
        .expect("node runs")
}

/// The screenshots' folder, `results/screenshots/`.
fn shots() -> PathBuf {
    let shots = root().join("results/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    shots
}

/// `o` is a browser test that passed, down to its last check, `last`.
fn passed(o: &Output, last: &str) {
    assert!(
        o.status.success(),
        "the browser test failed:\n{}\n{}",
        stdout(o),
        stderr(o)
    );
    assert!(stdout(o).contains(last), "{}", stdout(o));
}

#[test]
fn the_matrix_page_works_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("matrix.html");
    let o = bin(&["matrix", "--html", page.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    passed(&node("pages.mjs", &page, &shots()), "ok - no errors logged");

    // And it catches a page whose highlight no longer follows the steps.
    let html = std::fs::read_to_string(&page).unwrap();
    let moved = r#"band.setAttribute("y", String(top - 3));"#;
    assert!(html.contains(moved), "the script positions the highlight");
    let broken = dir.path().join("broken.html");
    std::fs::write(&broken, html.replace(moved, "")).unwrap();
    let o = node("pages.mjs", &broken, dir.path());
    assert!(!o.status.success(), "a broken page passed:\n{}", stdout(&o));
    assert!(stderr(&o).contains("highlight moved"), "{}", stderr(&o));
}

#[test]
fn the_playground_works_in_a_real_browser() {
    let server = super::serve::start();
    let url = format!("http://127.0.0.1:{}/", server.port);
    passed(&node("serve.mjs", url, &shots()), "ok - no other errors");
}
