//! Partition digests (docs/protocol.md, "Partition digests"): a cluster peer's verification
//! run digests each partition of its result where the partition lies, by this binary's
//! `__partition-digest` (the oracle's code, not the engine's), and the runner adds the parts up
//! and compares the sum with the source's digest. The program is the oracle's; the engine only
//! hands it each partition as an Arrow IPC file.

use super::Leeway;
use crate::Error;
use arrow::datatypes::SchemaRef;
use arrow::ipc::reader::FileReader;
use formatbench_oracle::partitions;
use formatbench_protocol::{Op, OpParams, PartialDigest};
use std::path::{Path, PathBuf};

/// The hidden command that digests one partition:
/// `formatbench __partition-digest --expected SCHEMA [--other-widths] PARTITION`.
pub const PARTITION_DIGEST_ARG: &str = "__partition-digest";

/// The command a job's `partition_digest` names: this binary, the expected schema's file, the
/// backend's declared widths; the engine appends each partition's file.
pub fn command(expected_schema: &Path, leeway: Leeway) -> Result<Vec<String>, Error> {
    let exe =
        std::env::current_exe().map_err(Error::failed("cannot locate the formatbench binary"))?;
    let mut command = vec![
        exe.to_string_lossy().into_owned(),
        PARTITION_DIGEST_ARG.into(),
        "--expected".into(),
        expected_schema.to_string_lossy().into_owned(),
    ];
    if leeway.other_widths {
        command.push("--other-widths".into());
    }
    Ok(command)
}

/// Writes the schema of `op`'s expected result (an Arrow IPC file without rows) to `path`.
pub fn write_expected_schema(
    source: &Path,
    op: Op,
    params: &OpParams,
    path: &Path,
) -> Result<(), Error> {
    let schema = partitions::expected_schema(source, op, params)?;
    let file = std::fs::File::create(path).map_err(Error::at("create", path))?;
    let mut writer = arrow::ipc::writer::FileWriter::try_new(file, &schema)?;
    writer.finish()?;
    Ok(())
}

fn open(path: &Path, what: &str) -> Result<FileReader<std::io::BufReader<std::fs::File>>, Error> {
    let file = std::fs::File::open(path).map_err(Error::at("open", path))?;
    FileReader::try_new_buffered(file, None).map_err(|e| {
        Error::Input(format!(
            "{what} {} is no Arrow IPC file: {e}",
            path.display()
        ))
    })
}

/// What the partitions add up to: the digest of the result they make together (in the same
/// form as the runner's digest of a result file without row order), its rows, and a line
/// saying so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summed {
    pub digest: String,
    pub rows: u64,
    /// "16 partitions, 4000 rows, digested in the engine: rd1:…".
    pub described: String,
}

/// The partitions added up, in the common types of the source's expected columns and the
/// result's: those of the file at `result` (its schema; a result kept in the cluster writes
/// one without rows), or, where there is none (a result without rows anywhere), the expected
/// types. `Ok(Err(why))` when the parts cannot stand for the result (other columns, a value
/// that does not survive the common type).
pub fn sum(
    source: &Path,
    op: Op,
    params: &OpParams,
    result: Option<&Path>,
    parts: &[PartialDigest],
    leeway: Leeway,
) -> Result<Result<Summed, String>, Error> {
    Ok(summed_in_common(source, op, params, result, parts, leeway)?.map(|(summed, _)| summed))
}

/// [`sum`], and the common types it added the parts up in.
fn summed_in_common(
    source: &Path,
    op: Op,
    params: &OpParams,
    result: Option<&Path>,
    parts: &[PartialDigest],
    leeway: Leeway,
) -> Result<Result<(Summed, SchemaRef), String>, Error> {
    let what = match result {
        Some(result) => format!("verification output {}", result.display()),
        None => "the expected result's schema".to_string(),
    };
    crate::error::reading(&what, || {
        let expected = partitions::expected_schema(source, op, params)?;
        let actual = match result {
            Some(result) => open(result, "verification output")?.schema(),
            None => expected.clone(),
        };
        let common = match partitions::common_schema(&expected, &actual, &leeway) {
            Ok(common) => common,
            Err(e) => return Ok(Err(e.to_string())),
        };
        let digest = match partitions::combine(parts, &common) {
            Ok(digest) => digest,
            Err(e) => return Ok(Err(e.to_string())),
        };
        let rows: u64 = parts.iter().map(|p| p.rows).sum();
        let noun = if parts.len() == 1 {
            "partition"
        } else {
            "partitions"
        };
        let described = format!(
            "{} {noun}, {rows} rows, digested in the engine: {digest}",
            parts.len()
        );
        let summed = Summed {
            digest,
            rows,
            described,
        };
        Ok(Ok((summed, common)))
    })
}

/// The partition digests checked against the source: `Ok(Ok(summed))` when they add up to the
/// source's digest (its `described` then ends "the source's"), `Ok(Err(why))` when they do
/// not. The result's column types are those of `result`, as in [`sum`].
pub fn check(
    source: &Path,
    op: Op,
    params: &OpParams,
    result: Option<&Path>,
    parts: &[PartialDigest],
    leeway: Leeway,
) -> Result<Result<Summed, String>, Error> {
    let (mut summed, common) = match summed_in_common(source, op, params, result, parts, leeway)? {
        Ok(done) => done,
        Err(why) => return Ok(Err(why)),
    };
    let want = partitions::expected_digest(source, op, params, &common)?;
    Ok(if summed.digest == want {
        summed.described.push_str(", the source's");
        Ok(summed)
    } else {
        Err(format!("{}; the source's is {want}", summed.described))
    })
}

/// `__partition-digest`: prints one partition's [`PartialDigest`] as JSON; an error is one
/// line on stderr and exit 1.
pub fn main(args: &[String]) -> i32 {
    match run(args) {
        Ok(json) => {
            println!("{json}");
            0
        }
        Err(e) => {
            eprintln!("formatbench {PARTITION_DIGEST_ARG}: error: {e}");
            1
        }
    }
}

fn run(args: &[String]) -> Result<String, Error> {
    let usage = || {
        Error::Input(format!(
            "usage: formatbench {PARTITION_DIGEST_ARG} --expected SCHEMA [--other-widths] PARTITION"
        ))
    };
    let mut expected: Option<PathBuf> = None;
    let mut partition: Option<PathBuf> = None;
    let mut leeway = Leeway::EXACT;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--expected" => expected = Some(args.next().ok_or_else(usage)?.into()),
            "--other-widths" => leeway.other_widths = true,
            _ if partition.is_none() && !arg.starts_with("--") => partition = Some(arg.into()),
            _ => return Err(usage()),
        }
    }
    let (expected, partition) = expected.zip(partition).ok_or_else(usage)?;
    let what = format!("partition {}", partition.display());
    let part = crate::error::reading(&what, || {
        let expected = open(&expected, "expected schema")?.schema();
        let reader = open(&partition, "partition")?;
        let actual = reader.schema();
        Ok(partitions::partial(
            &expected,
            &actual,
            reader.map(|b| b.map_err(formatbench_oracle::Error::from)),
            &leeway,
        )?)
    })?;
    serde_json::to_string(&part).map_err(|e| Error::Input(e.to_string()))
}
