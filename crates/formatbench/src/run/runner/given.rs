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
    object: Option<formatbench_protocol::ObjectTarget>,
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
    if let Some(cast) = source.parameters.get("feature_type") {
        // The canonical source is the cast: the file itself holds other types.
        record.status = SampleStatus::Unsupported;
        record.reason = Some(format!(
            "the file as given is not the data measured: --feature-type cast it ({cast})"
        ));
    } else if let Some(object) = object {
        in_place(runner, &dir, info, source, object, &mut record)?;
    } else {
        linked(runner, &dir, info, source, input, &mut record)?;
    }
    runner.prepared.insert(dir.clone(), record.clone());
    runner.results.append(&Record::Artifact(record.clone()))?;
    Ok((dir, record))
}

/// The record of a local file linked in place, and its upload where the run's artifacts live
/// in a bucket.
fn linked(
    runner: &mut Runner,
    dir: &Path,
    info: &BackendInfo,
    source: &Source,
    input: &str,
    record: &mut ArtifactRecord,
) -> Result<(), Error> {
    let format = source.parameters.get("format").map_or("", String::as_str);
    match link_into(dir, info, Path::new(input)) {
        Err(reason) => {
            record.status = SampleStatus::Failed;
            record.reason = Some(reason);
        }
        Ok(size) => {
            record.size_bytes = Some(size);
            let values = source.rows * source.schema.fields().len() as u64;
            record.bytes_per_value = (values > 0).then(|| size as f64 / values as f64);
            record.settings = crate::datasets::given::describe(Path::new(input), format)?;
            if let Some(target) = runner.object_target(dir) {
                // The bucket gets the file as it is, as every artifact gets there.
                match formatbench_s3_client::upload_artifact(dir, &target) {
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
    Ok(())
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

/// The record of a user's object read in place (`--input s3://…`): described from the run's
/// untimed local copy, and every job of its competitor pointed at the object itself (nothing
/// is uploaded, and nothing written to the user's store).
fn in_place(
    runner: &mut Runner,
    dir: &Path,
    info: &BackendInfo,
    source: &Source,
    object: formatbench_protocol::ObjectTarget,
    record: &mut ArtifactRecord,
) -> Result<(), Error> {
    if let Err(reason) = &info.object_storage {
        record.status = SampleStatus::Unsupported;
        record.reason = Some(format!("the file is read where it lies: {reason}"));
        return Ok(());
    }
    let (Some(copy), Some(given)) = (source.parameters.get("input_copy"), info.given.as_ref())
    else {
        record.status = SampleStatus::Failed;
        record.reason = Some("the object's local copy is missing".into());
        return Ok(());
    };
    let format = source.parameters.get("format").map_or("", String::as_str);
    let copy = Path::new(copy);
    let size = std::fs::metadata(copy)
        .map_err(Error::at("read", copy))?
        .len();
    record.size_bytes = Some(size);
    let values = source.rows * source.schema.fields().len() as u64;
    record.bytes_per_value = (values > 0).then(|| size as f64 / values as f64);
    record.settings = crate::datasets::given::describe(copy, format)?;
    record.settings.insert(
        "profile_settings".into(),
        format!(
            "the user's {format} object, read in place from {} (never written)",
            object.endpoint
        ),
    );
    record.settings.insert("object_url".into(), object.url());
    std::fs::create_dir_all(dir).map_err(Error::at("create", dir))?;
    let target = formatbench_protocol::ObjectTarget {
        key: String::new(),
        objects: [(given.file.clone(), object.key.clone())].into(),
        network: None,
        ..object
    };
    runner.given_objects.insert(dir.to_path_buf(), target);
    Ok(())
}
