use crate::Error;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// The built-in generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasetKind {
    /// FeatherStore's mixed table: int64, string, float64, timestamp[s], bool, uint64, cycling.
    Mixed,
    /// The R study's long table with categoricals.
    Long,
    /// The layout study's float32 feature matrix with metadata columns.
    Features,
    /// The Delta reader study's text-heavy table: six columns of Zipf-distributed words.
    Text,
}

pub const DATASET_KINDS: [(DatasetKind, &str); 4] = [
    (
        DatasetKind::Mixed,
        "index, then K columns each of int64, string(5), float64, timestamp[s], bool, uint64 (FeatherStore study)",
    ),
    (
        DatasetKind::Long,
        "index, cat_A (US state), cat_B (A/B), date, num_1..num_4, chr_1..chr_4 (R read/write study)",
    ),
    (
        DatasetKind::Features,
        "index, sample_id, plate_id, well_id, then D standard-normal float32 features (layout study)",
    ),
    (
        DatasetKind::Text,
        "index, text_1..text_6 of Zipf-distributed words, ~1 KB a row (Delta reader study)",
    ),
];

impl DatasetKind {
    pub fn name(self) -> &'static str {
        match self {
            DatasetKind::Mixed => "mixed",
            DatasetKind::Long => "long",
            DatasetKind::Features => "features",
            DatasetKind::Text => "text",
        }
    }
}

impl fmt::Display for DatasetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DatasetKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        DATASET_KINDS
            .iter()
            .map(|(k, _)| *k)
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                Error::Input(format!(
                    "unknown dataset '{s}' (known: mixed, long, features, text)"
                ))
            })
    }
}

/// How a generated table's values are spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Uniform random values and no nulls, as the studies generated them: the worst case for
    /// every encoding.
    #[default]
    Random,
    /// Shaped like real data: nulls, skewed and low-cardinality values, sorted and clustered
    /// columns, rounded numbers (datasets/realistic.rs).
    Realistic,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Random => "random",
            Shape::Realistic => "realistic",
        }
    }
}

impl FromStr for Shape {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "random" => Ok(Shape::Random),
            "realistic" => Ok(Shape::Realistic),
            _ => Err(Error::Input(format!(
                "unknown shape '{s}' (known: random, realistic)"
            ))),
        }
    }
}

/// One dataset of a plan.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum DatasetSpec {
    Generated {
        kind: DatasetKind,
        rows: u64,
        /// `mixed`: columns of each type.
        per_type: usize,
        /// `features`: feature columns.
        features: usize,
        seed: u64,
        /// How the values are spread (`--shape`).
        #[serde(default, skip_serializing_if = "is_random")]
        shape: Shape,
    },
    Input {
        path: PathBuf,
        index: Option<String>,
        /// `--feature-type`: the float64 columns cast to this type as the file is ingested.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feature_type: Option<super::FeatureType>,
        /// `--input s3://BUCKET/KEY`: the object (`key` is its key) on the user's store, read
        /// in place by the `as-given` competitors; `path` is then its `s3://` address.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        object: Option<formatbench_protocol::ObjectTarget>,
    },
}

/// A user file's dataset key: its stem with anything but letters, digits, `.`, `_` and `-`
/// replaced by `_`. The key names directories (sources, artifacts), so a stem of dots only
/// (`...csv` has stem `..`) or none at all becomes `input`.
pub fn input_name(path: &std::path::Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.chars().all(|c| c == '.') {
        "input".to_string()
    } else {
        clean
    }
}

impl DatasetSpec {
    /// The dataset's key in results: kind, rows and columns (index included), a realistic
    /// table's led by `realistic-`; or the file's stem.
    pub fn name(&self) -> String {
        match self {
            DatasetSpec::Generated {
                kind, rows, shape, ..
            } => {
                let lead = match shape {
                    Shape::Random => "",
                    Shape::Realistic => "realistic-",
                };
                format!("{lead}{kind}-{rows}x{}", self.columns())
            }
            DatasetSpec::Input { path, .. } => input_name(path),
        }
    }

    /// Columns of a generated table, the index included (unknown for inputs before reading).
    pub fn columns(&self) -> usize {
        match self {
            DatasetSpec::Generated {
                kind: DatasetKind::Mixed,
                per_type,
                ..
            } => 1 + 6 * per_type,
            DatasetSpec::Generated {
                kind: DatasetKind::Long,
                ..
            } => 12,
            DatasetSpec::Generated {
                kind: DatasetKind::Features,
                features,
                ..
            } => 4 + features,
            DatasetSpec::Generated {
                kind: DatasetKind::Text,
                ..
            } => 7,
            DatasetSpec::Input { .. } => 0,
        }
    }
}

fn is_random(shape: &Shape) -> bool {
    *shape == Shape::Random
}
