#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The shape of the code, checked: formatbench's modules form the pipeline's DAG (no module
//! uses one above it), only one module links the built-in workers, and no file of any crate of
//! ours takes part in an import cycle.
//!
//! Imports are read from the source text: `use` trees and inline `crate::`/`super::`/`self::`
//! paths, resolved through `pub use` re-exports to the file that defines the item. A module
//! declaring a child (`mod x;`) or re-exporting its descendants' items (a facade) does not
//! import them; every other use does.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// formatbench's top-level modules, each with the layer it sits in: a module may use modules
/// of lower layers only. The pipeline reads top-down: cli → run → plan / verify / peers →
/// catalog / datasets / results; report → stats → results; leaves at the bottom.
const LAYERS: &[(&str, u32)] = &[
    ("cli", 10),
    ("history", 9),
    ("run", 8),
    ("compare", 8),
    ("report", 7),
    ("export", 6),
    ("plan", 6),
    ("verify", 6),
    ("peers", 6),
    ("environment", 5),
    ("stats", 5),
    ("catalog", 4),
    ("datasets", 4),
    ("results", 3),
    ("document", 2),
    ("progress", 1),
    ("interrupt", 1),
    ("rng", 1),
    ("units", 1),
    ("error", 0),
];

/// One crate's modules: module path (`a::b`, "" for the root) → its file's text, with the
/// child modules each declares.
struct Crate {
    files: BTreeMap<String, (PathBuf, String)>,
    children: BTreeMap<String, BTreeSet<String>>,
}

fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            // Inside a string a `//` is no comment, but only `"` before it tells; good enough
            // for paths, which never hold one.
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Paths inside an inline module (`mod tests { use super::*; }`) start one level deeper than
/// the file's: their first `super` is the file itself, written here as `self`.
fn flatten_inline_modules(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_inline_mod(rest) {
        let open = at + rest[at..].find('{').unwrap();
        let mut depth = 0;
        let mut close = rest.len();
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push_str(&rest[..open]);
        out.push_str(&rest[open..close].replace("super::", "self::"));
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Where the next `mod NAME {` starts.
fn find_inline_mod(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find("mod ") {
        let at = from + i;
        from = at + 4;
        let boundary = at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric();
        let rest = &text[at + 4..];
        let name_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if boundary && name_end > 0 && rest[name_end..].trim_start().starts_with('{') {
            return Some(at);
        }
    }
    None
}

fn load_crate(src: &Path) -> Crate {
    let mut files = BTreeMap::new();
    let mut children: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let root = if src.join("lib.rs").exists() {
        src.join("lib.rs")
    } else {
        src.join("main.rs")
    };
    let mut stack = vec![(String::new(), root, src.to_path_buf())];
    while let Some((module, file, dir)) = stack.pop() {
        let text =
            flatten_inline_modules(&strip_comments(&std::fs::read_to_string(&file).unwrap()));
        let mut pending_path: Option<String> = None;
        for line in text.lines() {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("#[path = \"") {
                pending_path = rest.split('"').next().map(str::to_string);
                continue;
            }
            let declared = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("pub(crate) mod "))
                .or_else(|| line.strip_prefix("mod "))
                .and_then(|r| r.strip_suffix(';'));
            if let Some(name) = declared {
                let child = if module.is_empty() {
                    name.to_string()
                } else {
                    format!("{module}::{name}")
                };
                let child_file = match pending_path.take() {
                    Some(p) => file.parent().unwrap().join(p),
                    None if dir.join(format!("{name}.rs")).exists() => {
                        dir.join(format!("{name}.rs"))
                    }
                    None => dir.join(name).join("mod.rs"),
                };
                children
                    .entry(module.clone())
                    .or_default()
                    .insert(name.into());
                stack.push((child, child_file, dir.join(name)));
            } else if !line.starts_with('#') {
                pending_path = None;
            }
        }
        files.insert(module, (file, text));
    }
    Crate { files, children }
}

/// Splits a `use` tree (`a::{b, c::{d as e}, self}`) into its full paths, each with the name
/// it binds (`e` for `d as e`, `a` for `a::{self}`).
fn expand_use(tree: &str) -> Vec<(Vec<String>, String)> {
    fn expand(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, String)>) {
        let tree = tree.trim();
        if tree.is_empty() {
            return;
        }
        if let Some(open) = tree.find('{') {
            let mut base = prefix.to_vec();
            base.extend(
                tree[..open]
                    .split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
            let inner = &tree[open + 1..tree.rfind('}').unwrap()];
            let (mut depth, mut start) = (0, 0);
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&base, &inner[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            expand(&base, &inner[start..], out);
        } else {
            let mut parts = tree.split(" as ");
            let mut path = prefix.to_vec();
            path.extend(
                parts
                    .next()
                    .unwrap()
                    .split("::")
                    .map(|s| s.trim().to_string()),
            );
            if path.last().is_some_and(|s| s == "self") {
                path.pop();
            }
            let bound = parts
                .next()
                .map(|a| a.trim().to_string())
                .or_else(|| path.last().cloned())
                .unwrap_or_default();
            out.push((path, bound));
        }
    }
    let mut out = Vec::new();
    expand(&[], tree, &mut out);
    out
}

/// `use` statements of a file (their trees, `pub use` marked), in order.
fn use_statements(text: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let prefix = before[line_start..].trim();
        let is_use = matches!(prefix, "" | "pub" | "pub(crate)" | "pub(super)");
        let after = &rest[at + 4..];
        if !is_use {
            rest = after;
            continue;
        }
        let end = after.find(';').unwrap_or(after.len());
        out.push((prefix.starts_with("pub"), after[..end].replace('\n', " ")));
        rest = &after[end..];
    }
    out
}

/// Inline `crate::…`, `super::…` and `self::…` paths outside `use` statements.
fn inline_paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("use ") || trimmed.starts_with("pub use ") {
            continue;
        }
        let bytes = line.as_bytes();
        for start in ["crate::", "super::", "self::"] {
            let mut from = 0;
            while let Some(i) = line[from..].find(start) {
                let at = from + i;
                from = at + start.len();
                if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                    continue;
                }
                let path: String = line[at..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                out.push(
                    path.split("::")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect(),
                );
            }
        }
    }
    out
}

impl Crate {
    fn join(module: &str, name: &str) -> String {
        if module.is_empty() {
            name.to_string()
        } else {
            format!("{module}::{name}")
        }
    }

    fn parent(module: &str) -> String {
        module
            .rsplit_once("::")
            .map_or(String::new(), |(p, _)| p.into())
    }

    /// Whether `module`'s file defines `name` itself.
    fn defines(&self, module: &str, name: &str) -> bool {
        let text = &self.files[module].1;
        let kinds = [
            "fn", "struct", "enum", "trait", "const", "static", "type", "union",
        ];
        text.lines().any(|l| {
            let words: Vec<&str> = l
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            words
                .windows(2)
                .any(|w| kinds.contains(&w[0]) && w[1] == name)
        }) || text.contains(&format!("macro_rules! {name}"))
    }

    /// The file (module) that defines the item `path` names, seen from `module`; `None` for
    /// outside crates and what cannot be resolved (std, macros, generic parameters).
    fn resolve(&self, module: &str, path: &[String], depth: u32) -> Option<String> {
        if depth > 16 || path.is_empty() {
            return None;
        }
        let mut current = module.to_string();
        let mut rest = path;
        match rest[0].as_str() {
            "crate" => {
                current = String::new();
                rest = &rest[1..];
            }
            "self" | "super" => {
                if rest[0] == "self" {
                    rest = &rest[1..];
                }
                while rest.first().is_some_and(|s| s == "super") {
                    current = Self::parent(&current);
                    rest = &rest[1..];
                }
            }
            first if self.children.get(module).is_some_and(|c| c.contains(first)) => {}
            _ => return None,
        }
        loop {
            let Some(name) = rest.first() else {
                // The path names a module itself (`use super::layout;`).
                return Some(current);
            };
            if name == "*" {
                return Some(current);
            }
            if self
                .children
                .get(&current)
                .is_some_and(|c| c.contains(name))
            {
                current = Self::join(&current, name);
                rest = &rest[1..];
                continue;
            }
            if self.defines(&current, name) {
                return Some(current);
            }
            // A re-export (or a glob of one): follow it to the definition.
            for (_, tree) in use_statements(&self.files[&current].1) {
                for (target, bound) in expand_use(&tree) {
                    let target = if bound == "*" {
                        let mut named = target[..target.len() - 1].to_vec();
                        named.push(name.clone());
                        named
                    } else if bound == *name {
                        target
                    } else {
                        continue;
                    };
                    if let Some(found) = self.resolve(&current, &target, depth + 1) {
                        return Some(found);
                    }
                }
            }
            return Some(current);
        }
    }

    /// Every file → the files it takes items from.
    fn imports(&self) -> BTreeMap<String, BTreeSet<String>> {
        self.imports_with_paths()
            .into_iter()
            .map(|(from, to)| (from, to.into_keys().collect()))
            .collect()
    }

    /// Every file → the files it takes items from, each with one path that does.
    fn imports_with_paths(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (module, (_, text)) in &self.files {
            // A module re-exporting its own descendants' items is their facade, not their
            // user: those `pub use`s are left out, every other path counts.
            let mut paths: Vec<(bool, Vec<String>)> = use_statements(text)
                .into_iter()
                .flat_map(|(public, tree)| {
                    expand_use(&tree)
                        .into_iter()
                        .map(move |(path, _)| (public, path))
                })
                .collect();
            paths.extend(inline_paths(text).into_iter().map(|p| (false, p)));
            let targets = graph.entry(module.clone()).or_default();
            for (re_export, path) in paths {
                let Some(target) = self.resolve(module, &path, 0) else {
                    continue;
                };
                let below = module.is_empty() || target.starts_with(&format!("{module}::"));
                if target != *module && !(re_export && below) {
                    targets.entry(target).or_insert_with(|| path.join("::"));
                }
            }
        }
        graph
    }
}

/// The groups of files that import each other around a cycle (strongly connected components
/// of more than one file), each sorted; none for a DAG.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Kosaraju: order by finish time, then collect components on the reversed graph.
    fn finish(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        seen: &mut BTreeSet<String>,
        order: &mut Vec<String>,
    ) {
        if !seen.insert(node.to_string()) {
            return;
        }
        for next in graph.get(node).into_iter().flatten() {
            finish(next, graph, seen, order);
        }
        order.push(node.to_string());
    }
    let mut reversed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in graph {
        for to in targets {
            reversed.entry(to.clone()).or_default().insert(from.clone());
        }
    }
    let (mut seen, mut order) = (BTreeSet::new(), Vec::new());
    for node in graph.keys() {
        finish(node, graph, &mut seen, &mut order);
    }
    let mut assigned = BTreeSet::new();
    let mut out = Vec::new();
    for node in order.iter().rev() {
        let mut component = Vec::new();
        finish(node, &reversed, &mut assigned, &mut component);
        if component.len() > 1 {
            component.sort();
            out.push(component);
        }
    }
    out
}

/// Every crate of ours: the workspace's and the heavy workers' (with the kit).
fn our_crates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for parent in ["crates", "workers/rust"] {
        for entry in std::fs::read_dir(repo().join(parent)).unwrap().flatten() {
            let src = entry.path().join("src");
            if src.join("lib.rs").exists() || src.join("main.rs").exists() {
                out.push(src);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_file_takes_part_in_an_import_cycle() {
    let mut found = Vec::new();
    for src in our_crates() {
        let krate = load_crate(&src);
        let evidence = krate.imports_with_paths();
        let file = |m: &String| {
            let file = &krate.files[m].0;
            file.strip_prefix(repo())
                .unwrap_or(file)
                .display()
                .to_string()
        };
        for cycle in cycles(&krate.imports()) {
            let named: Vec<String> = cycle.iter().map(file).collect();
            found.push(named.join(" ↔ "));
            for from in &cycle {
                for (to, path) in &evidence[from] {
                    if cycle.contains(to) {
                        found.push(format!("    {} uses {path} ({})", file(from), file(to)));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "files that import each other:\n{}",
        found.join("\n")
    );
}

/// Every Rust file of ours that declares a trait named `Backend`, by path.
fn backend_traits() -> Vec<String> {
    let mut found = Vec::new();
    for src in our_crates() {
        let krate = load_crate(&src);
        for (path, text) in krate.files.values() {
            let text = strip_comments(text);
            if text.lines().any(|l| {
                let l = l
                    .trim_start()
                    .trim_start_matches("pub ")
                    .trim_start_matches("pub(crate) ");
                l.starts_with("trait Backend:")
                    || l.starts_with("trait Backend ")
                    || l.starts_with("trait Backend<")
            }) {
                found.push(
                    path.strip_prefix(repo())
                        .unwrap_or(path)
                        .display()
                        .to_string(),
                );
            }
        }
    }
    found
}

/// One worker skeleton: the built-in worker and every heavy one implement the kit's trait and
/// run jobs through its runner, so a second `Backend` trait would be a second design.
#[test]
fn the_repository_has_one_backend_trait_the_kits() {
    assert_eq!(backend_traits(), vec!["workers/rust/kit/src/backend.rs"]);
    // Every worker's backends implement it: no worker carries a job runner of its own.
    for src in our_crates() {
        let krate = load_crate(&src);
        for (path, text) in krate.files.values() {
            let text = strip_comments(text);
            let runs_jobs = text.contains("measure_repeated(") || text.contains("measure_each(");
            let kit = path.starts_with(repo().join("workers/rust/kit"));
            let selftest = path.starts_with(repo().join("crates/formatbench-worker-selftest"));
            let protocol = path.starts_with(repo().join("crates/formatbench-protocol"));
            assert!(
                !runs_jobs || kit || selftest || protocol,
                "{} times operations itself; jobs run through the kit's runner",
                path.display()
            );
        }
    }
}

#[test]
fn formatbench_modules_use_only_modules_below_them() {
    let krate = load_crate(&repo().join("crates/formatbench/src"));
    let layer = |module: &str| {
        let top = module.split("::").next().unwrap_or_default();
        LAYERS
            .iter()
            .find(|(name, _)| *name == top)
            .map(|(_, l)| *l)
    };
    let mut upward = Vec::new();
    for (from, targets) in krate.imports() {
        if from.is_empty() {
            continue;
        }
        let Some(from_layer) = layer(&from) else {
            upward.push(format!("{from}: a top-level module missing from LAYERS"));
            continue;
        };
        for to in targets {
            let same_top = from.split("::").next() == to.split("::").next();
            if to.is_empty() || same_top {
                continue;
            }
            match layer(&to) {
                Some(to_layer) if to_layer < from_layer => {}
                _ => upward.push(format!("{from} uses {to}")),
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports against the pipeline:\n{}",
        upward.join("\n")
    );
}

/// The crates of the workers built into this binary. Only [`BUILTIN_ENTRY`] names them: the
/// rest of formatbench reaches a worker through the protocol, the kit's source reader and
/// digest, and the S3 client, never through a worker's backends.
const BUILTIN_WORKERS: [&str; 2] = ["formatbench_worker_arrow", "formatbench_worker_selftest"];
const BUILTIN_ENTRY: &str = "crates/formatbench/src/catalog/builtin.rs";

/// Every Rust file under `dir`, by path relative to the repository, with its text less comments.
fn rust_files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = strip_comments(&std::fs::read_to_string(&path).unwrap());
                let named = path.strip_prefix(repo()).unwrap_or(&path);
                out.push((named.display().to_string(), text));
            }
        }
    }
    out.sort();
    out
}

/// Whether `text` names the crate `name` (as a whole word: not `formatbench_worker_arrow58`).
fn names_crate(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

#[test]
fn only_the_catalogs_builtin_module_links_the_builtin_workers() {
    let files = rust_files(&repo().join("crates/formatbench/src"));
    let mut outside = Vec::new();
    for (path, text) in &files {
        for name in BUILTIN_WORKERS {
            if path != BUILTIN_ENTRY && names_crate(text, name) {
                outside.push(format!("{path} uses {name}"));
            }
        }
    }
    assert!(
        outside.is_empty(),
        "modules that reach a built-in worker's crate (use the protocol, \
         formatbench_worker_kit's source and digest, formatbench_s3_client or the catalog; \
         only {BUILTIN_ENTRY} links the workers):\n{}",
        outside.join("\n")
    );
    // The entry point does link them, so the check above cannot pass on a file it missed.
    let entry = &files
        .iter()
        .find(|(path, _)| path == BUILTIN_ENTRY)
        .unwrap()
        .1;
    for name in BUILTIN_WORKERS {
        assert!(
            names_crate(entry, name),
            "{BUILTIN_ENTRY} does not use {name}"
        );
    }
    assert!(names_crate(
        "use formatbench_worker_arrow::source;",
        BUILTIN_WORKERS[0]
    ));
    assert!(!names_crate(
        "formatbench_worker_arrow58::x",
        BUILTIN_WORKERS[0]
    ));
}

#[test]
fn the_checker_sees_a_cycle_and_an_upward_import() {
    // Its own parts on text made for them: a re-export followed to its definition.
    let paths = expand_use("super::{a, b::{self, c as d, e}, f}");
    let named = |p: &[&str], bound: &str| {
        (
            p.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            bound.to_string(),
        )
    };
    assert_eq!(
        paths,
        vec![
            named(&["super", "a"], "a"),
            named(&["super", "b"], "b"),
            named(&["super", "b", "c"], "d"),
            named(&["super", "b", "e"], "e"),
            named(&["super", "f"], "f"),
        ]
    );
    let graph = BTreeMap::from([
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]);
    assert_eq!(
        cycles(&graph),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
    let dag = BTreeMap::from([
        (
            "a".to_string(),
            BTreeSet::from(["b".to_string(), "c".to_string()]),
        ),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
    ]);
    assert!(cycles(&dag).is_empty());
}
