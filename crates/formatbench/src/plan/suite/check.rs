//! A suite's values checked key by key as the file is read, whatever the command line would
//! override later: a typo in a suite is found the first time the file is read, not on the day a
//! flag stops hiding it. Each problem names its key, and the line it is on.

use super::Suite;
use formatbench_protocol::Op;
use toml::de::{DeTable, DeValue};

/// One step of a key's path from the top of the file: a key, or an item of an array of tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Key(&'static str),
    Item(usize),
}

/// A value the suite cannot run with: where its key is, and what is wrong (`samples = 0: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub key: Vec<Step>,
    pub what: String,
}

fn problem(key: &[Step], what: String) -> Problem {
    Problem {
        key: key.to_vec(),
        what,
    }
}

/// The first problem of a parsed suite, in the order of its keys below.
pub fn first_problem(suite: &Suite) -> Option<Problem> {
    use Step::{Item, Key};
    let at_least_one = |key: &'static str, value: Option<u32>| {
        (value == Some(0))
            .then(|| format!("{key} = 0: give at least 1 (a cell needs one measured sample)"))
    };
    let counts = [
        (vec![Key("rounds")], at_least_one("rounds", suite.rounds)),
        (vec![Key("samples")], at_least_one("samples", suite.samples)),
        (
            vec![Key("quick"), Key("rounds")],
            at_least_one("quick.rounds", suite.quick.rounds),
        ),
        (
            vec![Key("quick"), Key("samples")],
            at_least_one("quick.samples", suite.quick.samples),
        ),
    ];
    if let Some((key, Some(what))) = counts.into_iter().find(|(_, what)| what.is_some()) {
        return Some(problem(&key, what));
    }
    let no_executors = |counts: &Option<Vec<u32>>| {
        counts
            .as_ref()
            .is_some_and(|c| c.is_empty() || c.contains(&0))
    };
    for (key, counts) in [
        (vec![Key("executors")], &suite.executors),
        (vec![Key("quick"), Key("executors")], &suite.quick.executors),
    ] {
        if no_executors(counts) {
            return Some(problem(
                &key,
                "executors: give counts of at least 1, e.g. [1, 2, 4]".into(),
            ));
        }
    }
    for (key, files) in [
        (vec![Key("parquet_files")], &suite.parquet_files),
        (
            vec![Key("quick"), Key("parquet_files")],
            &suite.quick.parquet_files,
        ),
    ] {
        if files.as_ref().is_some_and(|f| f.contains(&0)) {
            return Some(problem(
                &key,
                "parquet_files: give numbers of files of at least 1, e.g. [1, 16]".into(),
            ));
        }
    }
    if let Some(text) = &suite.precision {
        if crate::units::parse_precision(text).is_none() {
            return Some(problem(
                &[Key("precision")],
                format!("precision = {text:?}: give a percentage below 100% such as 5%, or off"),
            ));
        }
    }
    if let Some(text) = &suite.budget {
        if crate::units::parse_duration(text).is_none() {
            return Some(problem(
                &[Key("budget")],
                format!("budget = {text:?}: give a positive duration such as 60s, 2m or 1h"),
            ));
        }
    }
    if let Some(text) = &suite.storage {
        if text.parse::<crate::plan::StorageChoice>().is_err() {
            return Some(problem(
                &[Key("storage")],
                format!("storage = {text:?}: give local, s3 or s3://BUCKET/PREFIX"),
            ));
        }
    }
    if let Some(text) = &suite.network {
        let names = text.split(',').map(str::trim).filter(|n| !n.is_empty());
        for name in names {
            if let Err(e) = name.parse::<crate::plan::Network>() {
                return Some(problem(
                    &[Key("network")],
                    format!("network = {text:?}: {e}"),
                ));
            }
        }
    }
    // The groups `resolve::ops` expands, and every operation by its name.
    let known_op = |name: &str| {
        matches!(name, "all" | "features" | "delta" | "store") || name.parse::<Op>().is_ok()
    };
    if let Some(bad) = suite.ops.iter().find(|name| !known_op(name)) {
        let why = bad.parse::<Op>().err().unwrap_or_default();
        return Some(problem(
            &[Key("ops")],
            format!("ops: {why}, or a group: all, features, delta, store"),
        ));
    }
    if let Some(bad) = suite
        .exclude
        .iter()
        .find(|e| e.split('/').filter(|part| !part.is_empty()).count() != 2)
    {
        return Some(problem(
            &[Key("exclude")],
            format!("exclude: \"{bad}\" is not backend/profile"),
        ));
    }
    if suite.datasets.is_empty() {
        return Some(problem(
            &[Key("datasets")],
            "datasets: it names no datasets".into(),
        ));
    }
    if let Some(i) = suite
        .datasets
        .iter()
        .position(|d| d.rows.counts().is_empty())
    {
        return Some(problem(
            &[Key("datasets"), Item(i), Key("rows")],
            format!("rows = []: dataset {} lists no row count", i + 1),
        ));
    }
    None
}

/// The line (from 1) of the byte at `offset` in `text`, at most its last line.
pub fn line_of(text: &str, offset: usize) -> usize {
    let bytes = text.as_bytes();
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    line.min(last_line(text))
}

/// The number of the last line that holds anything (1 for an empty text).
fn last_line(text: &str) -> usize {
    text.lines().count().max(1)
}

/// The line of `key`'s name in `text`: the key itself, where the file writes it, whichever form
/// it takes (a `[table]` and its keys, a dotted key, an inline table).
pub fn key_line(text: &str, key: &[Step]) -> Option<usize> {
    let document = DeTable::parse(text).ok()?;
    let mut table: &DeTable = document.get_ref();
    let mut value: Option<&DeValue> = None;
    let mut line = None;
    for step in key {
        match (step, value) {
            (Step::Key(name), None | Some(DeValue::Table(_))) => {
                if let Some(DeValue::Table(inner)) = value {
                    table = inner;
                }
                let (k, v) = table.iter().find(|(k, _)| k.get_ref() == name)?;
                line = Some(line_of(text, k.span().start));
                value = Some(v.get_ref());
            }
            (Step::Item(i), Some(DeValue::Array(items))) => {
                let item = items.get(*i)?;
                value = Some(item.get_ref());
            }
            _ => return None,
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_counts_the_line_breaks_before_it_and_stays_in_the_text() {
        let text = "a = 1\nb = 2\nc = 3\n";
        assert_eq!(line_of(text, 0), 1);
        assert_eq!(line_of(text, 6), 2);
        assert_eq!(line_of(text, 12), 3);
        // At the very end (after the last line break): the last line, not one past it.
        assert_eq!(line_of(text, text.len()), 3);
        assert_eq!(line_of("", 5), 1);
    }

    #[test]
    fn a_key_is_found_in_every_form_toml_writes_it() {
        use Step::{Item, Key};
        let text = "name = \"x\"\n\n[quick]\nrounds = 1\nsamples = 0\n";
        assert_eq!(key_line(text, &[Key("quick"), Key("samples")]), Some(5));
        assert_eq!(key_line(text, &[Key("name")]), Some(1));
        let dotted = "name = \"x\"\nquick.samples = 0\n";
        assert_eq!(key_line(dotted, &[Key("quick"), Key("samples")]), Some(2));
        let inline = "name = \"x\"\n\nquick = { samples = 0 }\n";
        assert_eq!(key_line(inline, &[Key("quick"), Key("samples")]), Some(3));
        let datasets = "[[datasets]]\nrows = 1\n\n[[datasets]]\nkind = \"long\"\nrows = []\n";
        assert_eq!(
            key_line(datasets, &[Key("datasets"), Item(1), Key("rows")]),
            Some(6)
        );
        assert_eq!(key_line(datasets, &[Key("samples")]), None);
        assert_eq!(key_line("not toml [", &[Key("samples")]), None);
    }

    /// The key an error blames: serde's "unknown field `K`", or a check's "K = …" / "K: …".
    fn blamed_key(detail: &str) -> Option<&str> {
        if let Some(rest) = detail.strip_prefix("unknown field `") {
            return rest.split('`').next();
        }
        let (key, rest) = detail.split_at(detail.find([' ', ':'])?);
        let is_key = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_lowercase() || "_.".contains(c));
        (is_key && (rest.starts_with(" = ") || rest.starts_with(':')))
            .then(|| key.rsplit('.').next().unwrap_or(key))
    }

    /// What the fuzz target asserts (fuzz/fuzz_targets/suite_toml.rs), over every built-in suite
    /// with a bad key put before each of its lines in turn (so into each of its tables): every
    /// error names a line of the file, and the line of the key it blames.
    #[test]
    fn every_error_names_a_line_of_the_file_that_holds_its_key() {
        let bad = [
            "backend = [\"csv\"]",
            "samples = 0",
            "rounds = 0",
            "precision = \"fast\"",
            "budget = \"-3s\"",
            "network = \"moon\"",
            "ops = [\"fly\"]",
            "exclude = [\"csv\"]",
            "rows = []",
            "quick.samples = 0",
            "quick = { rounds = 0 }",
            "name = 5",
        ];
        let mut blamed = 0;
        for (name, text) in super::super::BUILTIN_SUITES {
            let lines: Vec<&str> = text.lines().collect();
            for at in 0..=lines.len() {
                for insert in bad {
                    let mut edited = lines.clone();
                    edited.insert(at, insert);
                    let edited = edited.join("\n");
                    let Err(e) = super::super::parse_suite(&edited, name) else {
                        continue;
                    };
                    let message = e.to_string();
                    assert!(!message.contains('\n'), "{message}");
                    let Some((_, after)) = message.split_once(" (line ") else {
                        continue;
                    };
                    let (number, detail) = after.split_once("): ").unwrap();
                    let line: usize = number.parse().unwrap();
                    let count = edited.lines().count();
                    assert!((1..=count).contains(&line), "{line} of {count}: {message}");
                    if let Some(key) = blamed_key(detail) {
                        let held = edited.lines().nth(line - 1).unwrap();
                        assert!(
                            held.contains(key),
                            "{held:?} for {key}: {message}\n{edited}"
                        );
                        blamed += 1;
                    }
                }
            }
        }
        assert!(blamed > 1000, "only {blamed} errors blamed a key");
    }
}
