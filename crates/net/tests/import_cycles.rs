//! The modules of crates/net import each other one way: no `crate::` path runs in a circle
//! between two files, so each file can be read, built and tested above the ones it uses.
//! (The 802.11 MAC and Mobile IPv6 take the run's shared state, `ctx::Ctx`, and hand packets
//! back to the network rather than calling it.)

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every .rs file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's module path: "scenario::fields" for src/scenario/fields.rs, "wifi" for
/// src/wifi/mod.rs, "" for lib.rs.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src").with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without its tests (what follows the first `#[cfg(test)]`) and without
/// its comments, which may name a module without importing it.
fn code_of(text: &str) -> String {
    let code = text.find("#[cfg(test)]").map_or(text, |i| &text[..i]);
    code.lines().map(|l| l.find("//").map_or(l, |i| &l[..i])).collect::<Vec<_>>().join("\n")
}

/// The `crate::` paths a file names, each as its segments, braces expanded
/// (`crate::wifi::{config::WlanConfig, Wifi}` gives wifi::config::WlanConfig and wifi::Wifi).
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let prefix: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        let base: Vec<String> = prefix.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect();
        if after[prefix.len()..].starts_with('{') {
            let group = &after[prefix.len() + 1..];
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let mut path = base.clone();
                path.extend(item.trim().split("::").filter(|s| !s.is_empty()).map(str::to_string));
                out.push(path);
            }
        } else {
            out.push(base);
        }
        rest = after;
    }
    out
}

/// The module a path leads into: its longest prefix that is a module of the crate.
fn target(path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    (1..=path.len()).rev().map(|n| path[..n].join("::")).find(|m| modules.contains(m))
}

/// The strongly connected groups of more than one module (Tarjan's algorithm).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                group.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                s.found.push(group);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// Each module's `crate::` imports, by module.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).filter(|m| !m.is_empty()).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let from = module_of(src, f);
        if from.is_empty() {
            continue; // lib.rs only declares the modules
        }
        let text = fs::read_to_string(f).expect("a source file");
        let to: BTreeSet<String> =
            crate_paths(&code_of(&text)).iter().filter_map(|p| target(p, &modules)).filter(|m| *m != from).collect();
        edges.entry(from).or_default().extend(to);
    }
    edges
}

#[test]
fn no_module_imports_in_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = imports(&src);
    let found: Vec<String> = circles(&edges)
        .iter()
        .map(|group| {
            let ties = group
                .iter()
                .flat_map(|a| edges[a].iter().filter(|b| group.contains(*b)).map(move |b| format!("{a} -> {b}")));
            ties.collect::<Vec<_>>().join(", ")
        })
        .collect();
    assert!(found.is_empty(), "these modules import each other in a circle: {}", found.join("; "));
}

#[test]
fn the_reader_sees_paths_and_circles() {
    let paths = crate_paths("use crate::wifi::{config::WlanConfig, Wifi};\nlet x = crate::packet::NO_VIA;");
    assert_eq!(paths, [vec!["wifi", "config", "WlanConfig"], vec!["wifi", "Wifi"], vec!["packet", "NO_VIA"]]);
    let modules: BTreeSet<String> = ["wifi", "wifi::config", "packet"].iter().map(|s| s.to_string()).collect();
    assert_eq!(
        target(&paths[0].iter().map(|s| s.to_string()).collect::<Vec<_>>(), &modules).as_deref(),
        Some("wifi::config")
    );
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        edges.entry(a.into()).or_default().insert(b.into());
    }
    let found = circles(&edges);
    assert_eq!(found, [["a", "b", "c"].iter().map(|s| s.to_string()).collect::<BTreeSet<_>>()]);
    assert_eq!(code_of("a // crate::b\n#[cfg(test)]\nuse crate::x;"), "a ");
}
