//! The user's own file as a competitor: a backend that reads files of a format written by any
//! tool (not only its own writer) says so, and the runner puts the file, unchanged, where the
//! backend reads its artifact.

use serde::{Deserialize, Serialize};

/// The profile of a competitor that reads the user's file as given: no write, no re-encoding.
pub const AS_GIVEN: &str = "as-given";

/// The formats whose files from elsewhere a backend may read as given, as the ingest names
/// them.
pub const GIVEN_FORMATS: [&str; 3] = ["parquet", "arrow-ipc", "csv"];

/// Whether `name` is a well-formed format name (a backend's `format` in `--describe`): lower-case
/// letters, digits and `-`, starting with a letter (`parquet`, `arrow-ipc`, `delta`).
pub fn is_format_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// What a backend declares when its reads take any file of `format`: the runner links the
/// user's file as `file` inside the artifact directory (`data.parquet`), where the backend's
/// own writer would have put it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenFile {
    pub format: String,
    pub file: String,
}

impl GivenFile {
    pub fn new(format: &str, file: &str) -> Self {
        GivenFile {
            format: format.to_string(),
            file: file.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn format_names_are_lower_case_words_joined_by_hyphens() {
        for good in super::GIVEN_FORMATS
            .iter()
            .chain(&["delta", "ipc-parts", "npy"])
        {
            assert!(super::is_format_name(good), "{good}");
        }
        for bad in ["", "Parquet", "-csv", "arrow ipc", "2d", "delta/lake"] {
            assert!(!super::is_format_name(bad), "{bad}");
        }
    }
}
