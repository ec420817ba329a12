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
        std::fs::create_dir_all(dir).map_err(Error::at("create", dir))?;
        let path = dir.join(format!("{}.arrow", self.name()));
        match self {
            DatasetSpec::Generated { .. } => generate(self, &path),
            DatasetSpec::Input {
                path: input,
                index,
                feature_type,
                object: None,
            } => ingest_as(input, index.as_deref(), *feature_type, &path),
            DatasetSpec::Input {
                index,
                feature_type,
                object: Some(object),
                ..
            } => {
                // The canonical source is built from a local copy (untimed); the as-given
                // competitors read the object itself, where it lies.
                let name = object.key.rsplit('/').next().unwrap_or("input");
                let copy = dir.join(format!("given-{name}"));
                formatbench_s3_client::download_object(object, &copy).map_err(Error::Io)?;
                let mut source = ingest_as(&copy, index.as_deref(), *feature_type, &path)?;
                source.name = self.name();
                source.parameters.insert("input".into(), object.url());
                source
                    .parameters
                    .insert("input_copy".into(), copy.display().to_string());
                source
                    .parameters
                    .insert("input_endpoint".into(), object.endpoint.clone());
                Ok(source)
            }
        }
    }
}
