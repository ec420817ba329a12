//! The user's file as a competitor (`as-given`): no write, no re-encoding; the file is linked
//! where the backend reads its artifact, and read in place.

use super::state::Runner;
use crate::catalog::BackendInfo;
use crate::datasets::Source;
use crate::plan::Competitor;
use crate::results::{ArtifactRecord, Record, SampleStatus};
use crate::Error;
use std::path::{Path, PathBuf};

/// The user's file behind `source` when `info` reads files of its format as given: `None`
/// for a generated dataset or a file of another format (the competitor then has no cells).
pub fn given_input<'a>(info: &BackendInfo, source: &'a Source) -> Option<&'a str> {
    let given = info.given.as_ref()?;
    let format = source.parameters.get("format")?;
    (*format == given.format)
        .then(|| source.parameters.get("input"))
        .flatten()
        .map(String::as_str)
}

/// The artifact directory of an `as-given` competitor, with the user's file linked in it under
/// the name the backend reads, and its record: the file's size and what it is.
pub fn given_artifact(
    runner: &mut Runner,
    info: &BackendInfo,
    competitor: &Competitor,
    source: &Source,
    input: &str,
) -> Result<(PathBuf, ArtifactRecord), Error> {
    let dir = runner
        .scratch
        .join("artifacts")
        .join(&source.name)
        .join(format!("{}-{}", competitor.backend, competitor.profile));
    if let Some(record) = runner.prepared.get(&dir) {
        return Ok((dir, record.clone()));
    }
    let mut record = super::cells::empty_artifact(&runner.run_id, source, competitor);
    let format = source.parameters.get("format").map_or("", String::as_str);
    match link_into(&dir, info, Path::new(input)) {
        Err(reason) => {
            record.status = SampleStatus::Failed;
            record.reason = Some(reason);
        }
        Ok(size) => {
            record.size_bytes = Some(size);
            let values = source.rows * source.schema.fields().len() as u64;
            record.bytes_per_value = (values > 0).then(|| size as f64 / values as f64);
            record.settings = crate::datasets::given::describe(Path::new(input), format)?;
            if let Some(target) = runner.object_target(&dir) {
                // The bucket gets the file as it is, as every artifact gets there.
                match formatbench_worker_arrow::upload_artifact(&dir, &target) {
                    Ok(_) => {
                        record.settings.insert("object_url".into(), target.url());
                    }
                    Err(reason) => {
                        record.status = SampleStatus::Failed;
                        record.reason = Some(format!("uploading the given file failed: {reason}"));
                    }
                }
            }
        }
    }
    runner.prepared.insert(dir.clone(), record.clone());
    runner.results.append(&Record::Artifact(record.clone()))?;
    Ok((dir, record))
}

/// Links `input` into `dir` under the name `info` reads (a symbolic link: the file is read in
/// place, never copied or written); its size.
fn link_into(dir: &Path, info: &BackendInfo, input: &Path) -> Result<u64, String> {
    let name = info
        .given
        .as_ref()
        .map(|g| g.file.as_str())
        .ok_or_else(|| format!("{} reads no file as given", info.name))?;
    let input = std::fs::canonicalize(input)
        .map_err(|e| format!("cannot find {}: {e}", input.display()))?;
    let size = std::fs::metadata(&input)
        .map_err(|e| format!("cannot read {}: {e}", input.display()))?
        .len();
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let link = dir.join(name);
    std::os::unix::fs::symlink(&input, &link)
        .map_err(|e| format!("cannot link {} at {}: {e}", input.display(), link.display()))?;
    Ok(size)
}
