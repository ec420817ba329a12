//! A dataset's canonical source, generated or ingested: the one step from a spec to a file.

use super::{generate, ingest_as, DatasetSpec, Source};
use crate::Error;
use std::path::Path;

impl DatasetSpec {
    /// Builds the canonical source in `dir`.
    pub fn materialize(&self, dir: &Path) -> Result<Source, Error> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{}.arrow", self.name()));
        match self {
            DatasetSpec::Generated { .. } => generate(self, &path),
            DatasetSpec::Input {
                path: input,
                index,
                feature_type,
            } => ingest_as(input, index.as_deref(), *feature_type, &path),
        }
    }
}
