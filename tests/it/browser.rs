//! The pages in a real browser (feature `browser`, which `.ci/run` turns on after installing
//! Debian's chromium and `tests/browser`'s playwright-core): `tests/browser/pages.mjs`
//! opens a freshly written matrix page from disk and clicks through it as a learner would,
//! `tests/browser/serve.mjs` does the same with `serve`'s playground, and both save the
//! screenshots the README shows under `results/screenshots/`.

use super::support::*;

#[test]
fn the_matrix_page_works_in_a_real_browser() {
    let browser = root().join("tests/browser");
    assert!(
        browser.join("node_modules/playwright-core").is_dir(),
        "run `npm ci` in tests/browser first (.ci/run does)"
    );
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("matrix.html");
    let o = bin(&["matrix", "--html", page.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shots = root().join("results/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let o = command("node")
        .arg(browser.join("pages.mjs"))
        .arg(&page)
        .arg(&shots)
        .output()
        .expect("node runs");
    assert!(
        o.status.success(),
        "the browser test failed:\n{}\n{}",
        stdout(&o),
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("ok - no errors logged"),
        "{}",
        stdout(&o)
    );

    // And it catches a page whose highlight no longer follows the steps.
    let html = std::fs::read_to_string(&page).unwrap();
    let moved = r#"band.setAttribute("y", String(top - 3));"#;
    assert!(html.contains(moved), "the script positions the highlight");
    let broken = dir.path().join("broken.html");
    std::fs::write(&broken, html.replace(moved, "")).unwrap();
    let o = command("node")
        .arg(browser.join("pages.mjs"))
        .arg(&broken)
        .arg(dir.path())
        .output()
        .expect("node runs");
    assert!(!o.status.success(), "a broken page passed:\n{}", stdout(&o));
    assert!(stderr(&o).contains("highlight moved"), "{}", stderr(&o));
}

#[test]
fn the_playground_works_in_a_real_browser() {
    let browser = root().join("tests/browser");
    let server = super::serve::start();
    let shots = root().join("results/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let o = command("node")
        .arg(browser.join("serve.mjs"))
        .arg(format!("http://127.0.0.1:{}/", server.port))
        .arg(&shots)
        .output()
        .expect("node runs");
    assert!(
        o.status.success(),
        "the browser test failed:\n{}\n{}",
        stdout(&o),
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("ok - no other errors"),
        "{}",
        stdout(&o)
    );
}
