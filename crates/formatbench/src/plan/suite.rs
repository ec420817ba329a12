//! Suites: TOML files naming datasets × backends × profiles × operations. Built-ins are embedded
//! in the binary; a user may pass a path.

mod check;

use crate::datasets::{DatasetKind, DatasetSpec, Shape};
use crate::Error;
use serde::Deserialize;
use std::path::Path;

pub const BUILTIN_SUITES: [(&str, &str); 9] = [
    ("default", include_str!("../../suites/default.toml")),
    (
        "featherstore",
        include_str!("../../suites/featherstore.toml"),
    ),
    ("layouts", include_str!("../../suites/layouts.toml")),
    ("delta", include_str!("../../suites/delta.toml")),
    ("stores", include_str!("../../suites/stores.toml")),
    ("egress", include_str!("../../suites/egress.toml")),
    ("delta-s3", include_str!("../../suites/delta-s3.toml")),
    ("r-study", include_str!("../../suites/r-study.toml")),
    ("scale-out", include_str!("../../suites/scale-out.toml")),
];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub datasets: Vec<SuiteDataset>,
    #[serde(default = "all")]
    pub backends: Vec<String>,
    /// Profiles to run; "all" runs every profile of each backend.
    #[serde(default = "all")]
    pub profiles: Vec<String>,
    #[serde(default = "all")]
    pub ops: Vec<String>,
    /// Layouts to store each table in (`wide`, `array`, or "all").
    #[serde(default = "wide")]
    pub layouts: Vec<String>,
    /// Competitors left out, as `backend/profile`, unless the command line names its own
    /// `--backends` or `--profiles`: what would cost the suite its time budget (the default
    /// suite's gzip CSV) is one flag away, never silently gone.
    #[serde(default)]
    pub exclude: Vec<String>,
    pub rounds: Option<u32>,
    /// At most this many measured samples per cell (`--samples`), for suites with many
    /// competitors, where a full balanced block (2n rounds) would take hours.
    pub samples: Option<u32>,
    /// Adaptive stopping: the precision groups stop at (`--precision`, e.g. "5%").
    pub precision: Option<String>,
    /// Adaptive stopping: the measuring time for the whole run (`--budget`, e.g. "40s").
    pub budget: Option<String>,
    pub warmup: Option<u32>,
    /// Tables of files (Delta): files each table is cut into (`--files`).
    pub files: Option<u64>,
    /// Tables of files: queries one `session` runs (`--queries`).
    pub queries: Option<u64>,
    /// Where artifacts live (`--storage`: `local` or `s3`) and the network to them
    /// (`--network`); the command line's win.
    pub storage: Option<String>,
    pub network: Option<String>,
    /// Cluster peers' executor counts (`--executors`).
    pub executors: Option<Vec<u32>>,
    /// The sweep's shared Parquet files: the table cut into this many files
    /// (`--parquet-files`).
    pub parquet_files: Option<Vec<u64>>,
    /// The sweep's shared Parquet files: row groups of about these sizes ("8MiB",
    /// `--row-group-bytes`).
    #[serde(default, deserialize_with = "byte_sizes")]
    pub row_group_bytes: Option<Vec<u64>>,
    #[serde(default)]
    pub quick: Quick,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quick {
    pub rounds: Option<u32>,
    /// At most this many measured samples per cell under `--quick` (`--samples`).
    pub samples: Option<u32>,
    /// Cluster peers' executor counts under `--quick` (`--executors`).
    pub executors: Option<Vec<u32>>,
    /// The sweep's file counts under `--quick` (`--parquet-files`).
    pub parquet_files: Option<Vec<u64>>,
    /// The sweep's row-group sizes under `--quick` (`--row-group-bytes`).
    #[serde(default, deserialize_with = "byte_sizes")]
    pub row_group_bytes: Option<Vec<u64>>,
}

/// Sizes written as the command line writes them ("8MiB", "128MiB").
fn byte_sizes<'de, D: serde::Deserializer<'de>>(to: D) -> Result<Option<Vec<u64>>, D::Error> {
    let texts: Option<Vec<String>> = Option::deserialize(to)?;
    texts
        .map(|texts| {
            texts
                .iter()
                .map(|t| {
                    crate::units::parse_bytes(t)
                        .filter(|n| *n > 0)
                        .ok_or_else(|| {
                            serde::de::Error::custom(format!("'{t}' is not a size such as 8MiB"))
                        })
                })
                .collect()
        })
        .transpose()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteDataset {
    pub kind: DatasetKind,
    /// One row count, or several (`rows = [100_000, 1_000_000]`): a sweep, one dataset each.
    pub rows: Rows,
    pub per_type: Option<usize>,
    pub features: Option<usize>,
    pub seed: Option<u64>,
    /// `random` (the default) or `realistic` (`--shape` replaces it).
    #[serde(default)]
    pub shape: Shape,
    /// `--rows` replaces this dataset's row count.
    #[serde(default)]
    pub scale: bool,
    /// Rows under `--quick` (unless `--rows` replaces a scaled dataset's).
    pub quick_rows: Option<u64>,
    /// Left out under `--quick`.
    #[serde(default)]
    pub skip_quick: bool,
}

/// A suite dataset's row count: one, or a list that sweeps the kind over sizes.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Rows {
    One(u64),
    Many(Vec<u64>),
}

impl Rows {
    pub fn counts(&self) -> Vec<u64> {
        match self {
            Rows::One(n) => vec![*n],
            Rows::Many(list) => list.clone(),
        }
    }
}

fn all() -> Vec<String> {
    vec!["all".into()]
}

fn wide() -> Vec<String> {
    vec!["wide".into()]
}

impl SuiteDataset {
    /// The dataset at each of its sizes. `rows` (the command line's `--rows`) replaces a
    /// scaled dataset's sizes; under `--quick` it runs at `quick_rows`, else its smallest size.
    pub fn to_specs(&self, seed: u64, rows: Option<&[u64]>, quick: bool) -> Vec<DatasetSpec> {
        let counts = match (self.scale, rows, quick) {
            (true, Some(rows), _) => rows.to_vec(),
            (_, _, true) => vec![self
                .quick_rows
                .or_else(|| self.rows.counts().into_iter().min())
                .unwrap_or(0)],
            _ => self.rows.counts(),
        };
        counts
            .into_iter()
            .map(|rows| DatasetSpec::Generated {
                kind: self.kind,
                rows,
                per_type: self.per_type.unwrap_or(10),
                features: self.features.unwrap_or(1024),
                seed: self.seed.unwrap_or(seed),
                shape: self.shape,
            })
            .collect()
    }
}

/// A suite from TOML text; `origin` names it in errors (a path, "(built-in NAME)"). Every key is
/// checked here, whatever the command line overrides later, and an error names the line of the
/// key it blames.
pub fn parse_suite(text: &str, origin: &str) -> Result<Suite, Error> {
    let suite: Suite = toml::from_str(text).map_err(|e| {
        // toml's messages may run over several lines; an error is one.
        let detail = e.message().trim().replace('\n', "; ");
        let line = e
            .span()
            .map(|span| format!(" (line {})", check::line_of(text, span.start)))
            .unwrap_or_default();
        Error::Input(format!("bad suite file {origin}{line}: {detail}"))
    })?;
    if let Some(problem) = check::first_problem(&suite) {
        let line = check::key_line(text, &problem.key)
            .map(|n| format!(" (line {n})"))
            .unwrap_or_default();
        return Err(Error::Input(format!(
            "bad suite file {origin}{line}: {}",
            problem.what
        )));
    }
    Ok(suite)
}

pub fn builtin_suite(name: &str) -> Option<Result<Suite, Error>> {
    BUILTIN_SUITES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| parse_suite(text, &format!("(built-in {n})")))
}

/// A built-in suite by name, or a TOML file by path.
pub fn load_suite(name_or_path: &str) -> Result<Suite, Error> {
    if let Some(suite) = builtin_suite(name_or_path) {
        return suite;
    }
    let path = Path::new(name_or_path);
    if !path.exists() {
        let known: Vec<&str> = BUILTIN_SUITES.iter().map(|(n, _)| *n).collect();
        return Err(Error::Input(format!(
            "unknown suite '{name_or_path}': not a built-in ({}) nor a file",
            known.join(", ")
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Input(format!("cannot read suite file {}: {e}", path.display())))?;
    parse_suite(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse() {
        for (name, _) in BUILTIN_SUITES {
            let suite = builtin_suite(name).unwrap().unwrap();
            assert_eq!(suite.name, name);
            assert!(!suite.datasets.is_empty());
        }
    }

    #[test]
    fn featherstore_scales_only_the_large_shape() {
        let suite = builtin_suite("featherstore").unwrap().unwrap();
        let specs: Vec<_> = suite
            .datasets
            .iter()
            .flat_map(|d| d.to_specs(42, Some(&[5000]), false))
            .collect();
        assert_eq!(specs[0].name(), "mixed-1000x7");
        assert_eq!(specs[1].name(), "mixed-5000x61");
        let quick: Vec<_> = suite
            .datasets
            .iter()
            .flat_map(|d| d.to_specs(42, None, true))
            .collect();
        assert_eq!(quick[1].name(), "mixed-100000x61");
        // --rows with several counts sweeps the scaled shape only.
        let swept: Vec<String> = suite
            .datasets
            .iter()
            .flat_map(|d| d.to_specs(42, Some(&[1000, 5000]), false))
            .map(|s| s.name())
            .collect();
        assert_eq!(swept, ["mixed-1000x7", "mixed-1000x61", "mixed-5000x61"]);
    }

    #[test]
    fn a_list_of_rows_is_a_sweep_and_quick_takes_its_smallest() {
        let suite = parse_suite(
            "name = \"x\"\n[[datasets]]\nkind = \"long\"\nrows = [1_000_000, 100_000]\n",
            "t.toml",
        )
        .unwrap();
        let names = |quick| -> Vec<String> {
            suite.datasets[0]
                .to_specs(42, None, quick)
                .iter()
                .map(|s| s.name())
                .collect()
        };
        assert_eq!(names(false), ["long-1000000x12", "long-100000x12"]);
        assert_eq!(names(true), ["long-100000x12"]);
        let err = parse_suite(
            "name = \"x\"\n[[datasets]]\nkind = \"long\"\nrows = []\n",
            "t.toml",
        )
        .unwrap_err();
        assert!(err.to_string().contains("lists no row count"), "{err}");
    }

    #[test]
    fn the_default_suite_leaves_gzip_csv_out_by_a_checked_exclusion() {
        let suite = builtin_suite("default").unwrap().unwrap();
        assert_eq!(suite.exclude, vec!["csv/compact".to_string()]);
        let err = parse_suite(
            "name = \"x\"\nexclude = [\"csv\"]\n[[datasets]]\nkind = \"mixed\"\nrows = 1\n",
            "t.toml",
        )
        .unwrap_err();
        assert!(err.to_string().contains("is not backend/profile"), "{err}");
    }

    #[test]
    fn a_bad_suite_names_the_problem() {
        let err = parse_suite("name = \"x\"\ndatasets = []\n", "t.toml").unwrap_err();
        assert!(err.to_string().contains("names no datasets"), "{err}");
        let err = parse_suite(
            "name = \"x\"\nbogus = 1\n[[datasets]]\nkind = \"mixed\"\nrows = 1\n",
            "t.toml",
        )
        .unwrap_err();
        assert!(err.to_string().contains("bogus"), "{err}");
        let err = parse_suite(
            "name = \"x\"\n[[datasets]]\nkind = \"nope\"\nrows = 1\n",
            "t.toml",
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with("bad suite file t.toml"),
            "{err}"
        );
        let dataset = "[[datasets]]\nkind = \"mixed\"\nrows = 1\n";
        let err = parse_suite(
            &format!("name = \"x\"\nparquet_files = [0]\n{dataset}"),
            "t",
        )
        .unwrap_err();
        assert!(err.to_string().contains("parquet_files"), "{err}");
        let err = parse_suite(
            &format!("name = \"x\"\nrow_group_bytes = [\"8 apples\"]\n{dataset}"),
            "t",
        )
        .unwrap_err();
        assert!(err.to_string().contains("8MiB"), "{err}");
    }
}
