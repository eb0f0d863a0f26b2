//! Tidy check, read as Rust (`syn`): **no import loop between modules.** A module that
//! uses another may not be used by it, directly or around a circle: a loop means neither
//! can be read, tested or moved without the other, and the dependencies no longer point
//! one way toward the core. A module using its own parent (or any ancestor) is not a
//! loop: a child is part of its parent, as `use super::*` says.
//!
//! Every path a module names counts: its `use` items and the paths in its code
//! (`super::sql::intern`, `crate::check::Verdict`), at the file (or inline module) they
//! are written in; test modules are left out. Doc comments are not code and do not count.

use crate::tidy::source_texts;
use std::collections::{BTreeMap, BTreeSet};
use syn::visit::Visit;

/// Loops not untangled yet, each with why it is there. The test fails when one of them
/// changes (grows, shrinks or goes away: then it leaves this list), so the list can only
/// get shorter. It is empty: the last two, inside the PostgreSQL engine, went when the
/// wire (`store::pg::wire`) moved below the session and the store's ledger and handler
/// statements became the store's own children.
const KNOWN: &[(&[&str], &str)] = &[];

/// The modules of the library, by path (`report::json`), each with the modules it uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every module of the library crate under `src/` (not the binary's `main.rs`), with the
/// modules it names.
fn library_graph() -> Graph {
    let modules: Vec<(Vec<String>, String)> = source_texts()
        .into_iter()
        .filter_map(|(rel, text)| Some((module_of(rel.strip_prefix("src/")?)?, text)))
        .collect();
    graph(&modules)
}

/// The module path of the file at `rel` (under `src/`): `None` for the binary's root and
/// for test files.
fn module_of(rel: &str) -> Option<Vec<String>> {
    let rel = rel.strip_suffix(".rs")?;
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if rel == "main" || parts.iter().any(|p| p == "tests") {
        return None;
    }
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    Some(parts)
}

/// The graph of `files` (each a module path and its source): the inline modules they
/// declare are modules too.
fn graph(files: &[(Vec<String>, String)]) -> Graph {
    let parsed: Vec<(Vec<String>, syn::File)> = files
        .iter()
        .map(|(m, text)| (m.clone(), syn::parse_file(text).expect("the crate parses")))
        .collect();
    let mut known = BTreeSet::new();
    for (module, file) in &parsed {
        known.insert(module.clone());
        inline_modules(module, &file.items, &mut known);
    }
    let mut names = Names {
        known: &known,
        cur: Vec::new(),
        edges: BTreeMap::new(),
    };
    for (module, file) in &parsed {
        names.cur = module.clone();
        names.edges.entry(module.join("::")).or_default();
        names.visit_file(file);
    }
    names.edges
}

fn inline_modules(parent: &[String], items: &[syn::Item], out: &mut BTreeSet<Vec<String>>) {
    for item in items {
        if let syn::Item::Mod(m) = item {
            if let (Some((_, items)), false) = (&m.content, is_test(&m.attrs)) {
                let mut path = parent.to_vec();
                path.push(m.ident.to_string());
                inline_modules(&path, items, out);
                out.insert(path);
            }
        }
    }
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    crate::tidy::is_cfg_test(attrs)
}

/// Walks one module's code, recording every module its paths name.
struct Names<'a> {
    known: &'a BTreeSet<Vec<String>>,
    cur: Vec<String>,
    edges: Graph,
}

impl Names<'_> {
    /// The module path `segments` names from the current module (the longest prefix that
    /// is a module), if it names one of the crate's.
    fn resolve(&self, segments: &[String]) -> Option<Vec<String>> {
        let (mut module, rest) = match segments.first().map(String::as_str)? {
            "crate" => (Vec::new(), &segments[1..]),
            "self" => (self.cur.clone(), &segments[1..]),
            "super" => {
                let ups = segments.iter().take_while(|s| *s == "super").count();
                let keep = self.cur.len().checked_sub(ups)?;
                (self.cur[..keep].to_vec(), &segments[ups..])
            }
            first => {
                // A child module named from its parent (`use crash::Process;`).
                let mut child = self.cur.clone();
                child.push(first.to_string());
                if !self.known.contains(&child) {
                    return None;
                }
                (self.cur.clone(), segments)
            }
        };
        for s in rest {
            module.push(s.clone());
            if !self.known.contains(&module) {
                module.pop();
                break;
            }
        }
        Some(module)
    }

    fn record(&mut self, segments: &[String]) {
        let Some(to) = self.resolve(segments) else {
            return;
        };
        // A module using itself or an ancestor is no loop.
        if self.cur.starts_with(&to) {
            return;
        }
        let from = self.cur.join("::");
        self.edges.entry(from).or_default().insert(to.join("::"));
    }
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_test(&m.attrs) || m.content.is_none() {
            return;
        }
        self.cur.push(m.ident.to_string());
        self.edges.entry(self.cur.join("::")).or_default();
        syn::visit::visit_item_mod(self, m);
        self.cur.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut paths);
        for p in paths {
            self.record(&p);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            self.record(&segments);
        }
        syn::visit::visit_path(self, p);
    }
}

/// Every path a `use` tree names, each as its segments.
fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) if n.ident == "self" => out.push(prefix.clone()),
        syn::UseTree::Name(n) => out.push([prefix.clone(), vec![n.ident.to_string()]].concat()),
        syn::UseTree::Rename(r) => {
            out.push([prefix.clone(), vec![r.ident.to_string()]].concat());
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_paths(t, prefix, out);
            }
        }
    }
}

/// The loops of `graph`: its strongly connected components of more than one module, each
/// sorted, in order.
fn loops(graph: &Graph) -> Vec<Vec<String>> {
    // Kosaraju: finishing order on the graph, then components on its transpose.
    fn finish(g: &Graph, v: &str, seen: &mut BTreeSet<String>, order: &mut Vec<String>) {
        if !seen.insert(v.to_string()) {
            return;
        }
        for w in g.get(v).into_iter().flatten() {
            finish(g, w, seen, order);
        }
        order.push(v.to_string());
    }
    let mut transpose: Graph = BTreeMap::new();
    for (v, ws) in graph {
        transpose.entry(v.clone()).or_default();
        for w in ws {
            transpose.entry(w.clone()).or_default().insert(v.clone());
        }
    }
    let (mut seen, mut order) = (BTreeSet::new(), Vec::new());
    for v in transpose.keys() {
        finish(graph, v, &mut seen, &mut order);
    }
    let mut assigned = BTreeSet::new();
    let mut out = Vec::new();
    for v in order.iter().rev() {
        let mut component = Vec::new();
        finish(&transpose, v, &mut assigned, &mut component);
        if component.len() > 1 {
            component.sort();
            out.push(component);
        }
    }
    out.sort();
    out
}

#[test]
fn no_module_loop_but_the_known_ones() {
    let found = loops(&library_graph());
    let known: Vec<Vec<String>> = KNOWN
        .iter()
        .map(|(l, _)| l.iter().map(|m| m.to_string()).collect())
        .collect();
    let new: Vec<&Vec<String>> = found.iter().filter(|l| !known.contains(l)).collect();
    let stale: Vec<&Vec<String>> = known.iter().filter(|l| !found.contains(l)).collect();
    assert!(
        new.is_empty(),
        "modules that use each other around a circle (a loop): {new:?}; make one of them \
         not need the other (move what both need to a module of its own, or down to their \
         parent)"
    );
    assert!(
        stale.is_empty(),
        "a known loop changed or is gone: take it off KNOWN (or write it as it is now): \
         {stale:?}"
    );
}

/// The rule catches a loop through a `use`, through a path in code and through a child
/// named from its parent, and passes a child using its parent, a test module and a doc
/// comment.
#[test]
fn the_loop_rule_catches_a_circle() {
    let m = |path: &str, text: &str| {
        let path: Vec<String> = path.split("::").map(str::to_string).collect();
        (path, text.to_string())
    };
    let files = [
        m("a", "mod b; mod c; use c::Thing;"),
        m("a::b", "use super::*; fn f() { let _ = super::c::make(); }"),
        m(
            "a::c",
            "use crate::a::b::Other;\n/// [`crate::d`]\npub struct Thing;",
        ),
        m(
            "d",
            "use crate::a::c::Thing;\n#[cfg(test)] mod tests { use crate::e::X; }",
        ),
        m("e", "use crate::d::Y;"),
        m("f", "pub mod inner { pub fn g() { crate::g::h(); } }"),
        m("g", "pub fn h() { crate::f::inner::g(); }"),
    ];
    let found = loops(&graph(&files));
    assert_eq!(
        found,
        vec![
            vec!["a::b".to_string(), "a::c".to_string()],
            vec!["f::inner".to_string(), "g".to_string()],
        ],
        "b -> c -> b is a loop; a -> c and b -> a are not; d -> e only in a test; the \
         doc link to d is no use; an inline module is a module"
    );
}
