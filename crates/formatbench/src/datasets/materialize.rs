//! A dataset's canonical source, generated or ingested: the one step from a spec to a file.

use super::{generate, ingest, DatasetSpec, Source};
use crate::Error;
use std::path::Path;

impl DatasetSpec {
    /// Builds the canonical source in `dir`.
    pub fn materialize(&self, dir: &Path) -> Result<Source, Error> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
        let path = dir.join(format!("{}.arrow", self.name()));
        match self {
            DatasetSpec::Generated { .. } => generate(self, &path),
            DatasetSpec::Input { path: input, index } => ingest(input, index.as_deref(), &path),
        }
    }
}
