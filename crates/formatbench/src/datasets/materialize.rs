//! A dataset's canonical source, generated or ingested: the one step from a spec to a file.

use super::{generate, ingest_as, DatasetSpec, Source};
use crate::Error;
use std::path::Path;

impl DatasetSpec {
    /// What [`DatasetSpec::materialize`] does, for the progress line: a user's file is read,
    /// a generated table made.
    pub fn materializing(&self) -> String {
        match self {
            DatasetSpec::Generated { .. } => "generating the canonical source".into(),
            DatasetSpec::Input { path, .. } => {
                format!("reading {} into the canonical source", path.display())
            }
        }
    }

    /// Builds the canonical source in `dir`.
    pub fn materialize(&self, dir: &Path) -> Result<Source, Error> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
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
