//! Tidy check, read as Rust (`syn`): **a test switch in a lower crate is one the tests
//! above it can reach.** A crate's `#[cfg(test)]` is false when another crate's tests
//! build it as a dependency. On an item (a function, a field, a module) that is safe: a
//! test above that uses it does not compile. On a statement, or in `cfg!(test)`, it is
//! silent: the code under it is simply not there, and a test above that counts on it
//! finds nothing to catch (the fingerprint's omission switches were read that way once,
//! and the tests that show a broken fingerprint caught quietly caught nothing). In a
//! member crate's production code, such code is compiled under
//! `#[cfg(any(test, feature = "test-support"))]` instead, the feature the root crate's
//! tests turn on.

use crate::support::root;
use crate::tidy::{is_cfg_test, is_test_file, sources};
use syn::visit::Visit;

/// The statements and expressions of `text` (a member crate's file, at `rel`) that only
/// `#[cfg(test)]` or `cfg!(test)` keep, one line each (`syn` here keeps no line numbers:
/// search the file for `cfg(test)`).
fn silent_switches(rel: &str, text: &str) -> Vec<String> {
    let file = syn::parse_file(text).expect("the crate parses");
    let mut finder = Finder {
        rel,
        found: Vec::new(),
    };
    finder.visit_file(&file);
    finder.found
}

struct Finder<'a> {
    rel: &'a str,
    found: Vec<String>,
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // A test module is the crate's own tests: its switches are its own.
        if !is_cfg_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
        let attrs: &[syn::Attribute] = match stmt {
            syn::Stmt::Local(l) => &l.attrs,
            syn::Stmt::Macro(m) => &m.attrs,
            syn::Stmt::Expr(e, _) => expr_attrs(e),
            syn::Stmt::Item(_) => &[],
        };
        if is_cfg_test(attrs) {
            (self.found).push(format!("{}: a statement under #[cfg(test)]", self.rel));
        }
        syn::visit::visit_stmt(self, stmt);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.is_ident("cfg") && m.tokens.to_string() == "test" {
            self.found.push(format!("{}: cfg!(test)", self.rel));
        }
    }
}

/// The attributes of an expression statement, for the kinds a switch is written as.
fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    match e {
        syn::Expr::If(x) => &x.attrs,
        syn::Expr::Block(x) => &x.attrs,
        syn::Expr::Call(x) => &x.attrs,
        syn::Expr::MethodCall(x) => &x.attrs,
        syn::Expr::Macro(x) => &x.attrs,
        syn::Expr::Match(x) => &x.attrs,
        syn::Expr::Assign(x) => &x.attrs,
        syn::Expr::Return(x) => &x.attrs,
        _ => &[],
    }
}

/// Every production file of the member crates under `crates/`, by its path.
fn member_files() -> Vec<(String, String)> {
    let mut paths = Vec::new();
    for krate in std::fs::read_dir(root().join("crates")).unwrap() {
        sources(&krate.unwrap().path().join("src"), &mut paths);
    }
    paths.sort();
    (paths.into_iter())
        .map(|p| (p.strip_prefix(root()).unwrap().display().to_string(), p))
        .filter(|(rel, _)| !is_test_file(rel))
        .map(|(rel, p)| (rel, std::fs::read_to_string(p).unwrap()))
        .collect()
}

#[test]
fn a_lower_crate_has_no_silent_test_switch() {
    let files = member_files();
    assert!(files.len() > 50, "{} files", files.len());
    let found: Vec<String> = (files.iter())
        .flat_map(|(rel, text)| silent_switches(rel, text))
        .collect();
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_switch_check_catches_each_kind() {
    let text = "fn hash(h: &mut H) {\n\
                \x20   #[cfg(test)]\n\
                \x20   let left = if h.omit { &[] } else { left };\n\
                \x20   #[cfg(test)]\n\
                \x20   if h.omit { return; }\n\
                \x20   if cfg!(test) { skip(); }\n\
                \x20   #[cfg(any(test, feature = \"test-support\"))]\n\
                \x20   if h.omit { return; }\n\
                }\n\
                #[cfg(test)]\n\
                fn only_in_tests() { #[cfg(test)] let x = 1; }\n\
                #[cfg(test)]\n\
                mod tests { fn t() { #[cfg(test)] let x = 1; } }\n";
    assert_eq!(
        silent_switches("crates/core/src/x.rs", text),
        [
            "crates/core/src/x.rs: a statement under #[cfg(test)]",
            "crates/core/src/x.rs: a statement under #[cfg(test)]",
            "crates/core/src/x.rs: cfg!(test)",
        ]
    );
}
