//! Tidy check, read as Rust (`syn`): **`report` runs no world.** The reports word and draw
//! results and views; the runs they tell (explain's watched run, the pages' listed runs)
//! are run and watched by their caller, which hands over the run and its
//! [`delivery_sim::view::RunView`] (a page that tells runs only while it has room asks its
//! caller's `view::TellRun` for each). So `report`'s production code names none of the
//! functions that start a run, an exploration or a watch, nor a runner, an observer or a
//! snapshot, whether by a full path, an import or a glob import of the modules that hold
//! them. Its unit tests may run what they check.

use crate::tidy::{is_cfg_test, is_test_file, source_texts};
use syn::visit::Visit;

/// The modules whose functions start runs, and those functions.
const RUNNING: &[(&str, &[&str])] = &[
    (
        "world",
        &[
            "run",
            "run_with",
            "run_on",
            "run_scheduled",
            "run_observed",
            "initial_committed",
            "InProcess",
            "Runner",
            "Observer",
            "Snapshot",
        ],
    ),
    ("view", &["watch", "run_and_watch"]),
    (
        "explore",
        &[
            "explore",
            "single_crash_points",
            "interleavings",
            "matrix",
            "matrix_on",
            "shrink",
            "shrink_while",
            "verify",
            "smallest_safe_ttl",
            "estimate",
        ],
    ),
];

/// Whether `path` (its segments, in order) names a function that starts a run, or is a
/// glob import of a module that holds some.
fn runs(path: &[String], glob: bool) -> bool {
    let n = path.len();
    RUNNING.iter().any(|(module, names)| {
        (glob && n >= 1 && path[n - 1] == *module)
            || (n >= 2 && path[n - 2] == *module && names.contains(&path[n - 1].as_str()))
    })
}

/// The paths in `text`'s production code that start a run, as `a::b::c`. A path that
/// starts at a module the file declares itself (`mod explore;` then `explore::…`) is that
/// module's, not the crate's.
fn running_paths(text: &str) -> Vec<String> {
    struct Paths {
        found: Vec<String>,
        local: Vec<String>,
    }
    impl Paths {
        fn seen(&mut self, path: Vec<String>, glob: bool) {
            let own = path.first().is_some_and(|first| self.local.contains(first));
            if runs(&path, glob) && !own {
                self.found
                    .push(path.join("::") + if glob { "::*" } else { "" });
            }
        }
        fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
            match tree {
                syn::UseTree::Path(p) => {
                    prefix.push(p.ident.to_string());
                    self.use_tree(prefix, &p.tree);
                    prefix.pop();
                }
                syn::UseTree::Name(n) => {
                    self.seen([prefix.clone(), vec![n.ident.to_string()]].concat(), false)
                }
                syn::UseTree::Rename(r) => {
                    self.seen([prefix.clone(), vec![r.ident.to_string()]].concat(), false)
                }
                syn::UseTree::Glob(_) => self.seen(prefix.clone(), true),
                syn::UseTree::Group(g) => {
                    for t in &g.items {
                        self.use_tree(prefix, t);
                    }
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Paths {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.seen(segments, false);
            syn::visit::visit_path(self, path);
        }
        fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
            self.use_tree(&mut Vec::new(), &item.tree);
        }
        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            if !is_cfg_test(&item.attrs) {
                syn::visit::visit_item_mod(self, item);
            }
        }
    }
    let parsed = syn::parse_file(text).expect("the crate parses");
    let local = (parsed.items.iter())
        .filter_map(|item| match item {
            syn::Item::Mod(m) => Some(m.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut paths = Paths {
        found: Vec::new(),
        local,
    };
    paths.visit_file(&parsed);
    paths.found
}

/// Every (file, path) of `report`'s production code that starts a run.
fn report_runs(files: &[(String, String)]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (file, text) in files {
        let test = is_test_file(file);
        if !file.starts_with("src/report/") || test {
            continue;
        }
        out.extend(running_paths(text).into_iter().map(|p| (file.clone(), p)));
    }
    out
}

#[test]
fn report_runs_no_world() {
    let files = source_texts();
    let found = report_runs(&files);
    assert!(
        found.is_empty(),
        "`report` starts runs itself: {found:?}; take the run and its `view::RunView` from \
         the caller (or a `view::TellRun` that makes them)"
    );
    // The rule reads the files it means: the CLI does name them.
    let cli: Vec<String> = files
        .iter()
        .filter(|(f, _)| f.starts_with("src/cli/"))
        .flat_map(|(_, t)| running_paths(t))
        .collect();
    assert!(
        cli.iter().any(|p| p.ends_with("world::InProcess")),
        "{cli:?}"
    );
}

/// The rule catches a run started by a full path, through an import (renamed, grouped, or
/// a glob of the module), and a parent path; it passes the runner's own methods, test
/// modules, and the same names in other modules.
#[test]
fn the_report_rule_catches_a_run() {
    let file = |rel: &str, text: &str| vec![(rel.to_string(), text.to_string())];
    let caught = |rel: &str, text: &str| report_runs(&file(rel, text));
    assert_eq!(
        caught(
            "src/report/html/a.rs",
            "fn f() { let r = crate::world::run(&s); }"
        ),
        [("src/report/html/a.rs".into(), "crate::world::run".into())]
    );
    for (text, path) in [
        (
            "use crate::world::{self, run_observed};",
            "crate::world::run_observed",
        ),
        (
            "use crate::world::run_with as go;",
            "crate::world::run_with",
        ),
        ("use crate::explore::*;", "crate::explore::*"),
        (
            "use super::super::world::InProcess;",
            "super::super::world::InProcess",
        ),
        ("fn f() { explore::explore(&s, o); }", "explore::explore"),
        (
            "fn f(r: &dyn crate::world::Runner) { let x = r.run(&s); }",
            "crate::world::Runner",
        ),
        (
            "use crate::world::{RunResult, Runner};",
            "crate::world::Runner",
        ),
        (
            "fn f() { let v = crate::view::watch(r, &s, &[], &x); }",
            "crate::view::watch",
        ),
    ] {
        let found = caught("src/report/explain/mod.rs", text);
        assert_eq!(found.len(), 1, "{text}: {found:?}");
        assert_eq!(found[0].1, path, "{text}");
    }
    for text in [
        "fn f(t: crate::view::TellRun) { let (r, v) = t(&s); }",
        "use crate::world::RunResult;",
        "#[cfg(test)]\nmod tests { fn t() { crate::world::run(&s); } }",
        "fn f() { crate::cli::run(&s); }",
        "mod explore;\npub use explore::*;\nfn f() { explore::estimate(x); }",
    ] {
        assert_eq!(caught("src/report/text/mod.rs", text), [], "{text}");
    }
    assert_eq!(
        caught("src/report/html/tests.rs", "fn t() { world::run(&s); }"),
        []
    );
    assert_eq!(
        caught("src/cli/command/run.rs", "fn t() { world::run(&s); }"),
        []
    );
}
