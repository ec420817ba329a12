//! The entry point every Rust worker shares: `--describe` or `--job PATH`.

use crate::{Answer, Job, PROTOCOL_VERSION};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("usage: worker --describe | --job JOB.json")]
    Usage,
    #[error("cannot read the job file: {0}")]
    ReadJob(std::io::Error),
    #[error("the job file is not a valid job: {0}")]
    ParseJob(serde_json::Error),
    #[error("the job speaks protocol {found}, this worker speaks {PROTOCOL_VERSION}")]
    Protocol { found: u32 },
    #[error("cannot write the answer file: {0}")]
    WriteAnswer(std::io::Error),
    #[error("cannot encode: {0}")]
    Encode(serde_json::Error),
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// Runs a worker: `--describe` prints `describe()` as JSON on stdout; `--job PATH` runs the job
/// and writes the answer to `job.answer`. Returns the process exit code.
pub fn describe_or_run(
    args: &[String],
    describe: impl FnOnce() -> serde_json::Value,
    run: impl FnOnce(&Job) -> Answer,
) -> i32 {
    match try_describe_or_run(args, describe, run) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("worker error: {e}");
            3
        }
    }
}

fn try_describe_or_run(
    args: &[String],
    describe: impl FnOnce() -> serde_json::Value,
    run: impl FnOnce(&Job) -> Answer,
) -> Result<(), WorkerError> {
    match args {
        [flag] if flag == "--describe" => {
            let text = serde_json::to_string(&describe()).map_err(WorkerError::Encode)?;
            println!("{text}");
            Ok(())
        }
        [flag, path] if flag == "--job" => {
            let text = std::fs::read_to_string(path).map_err(WorkerError::ReadJob)?;
            let job: Job = serde_json::from_str(&text).map_err(WorkerError::ParseJob)?;
            if job.protocol != PROTOCOL_VERSION {
                return Err(WorkerError::Protocol {
                    found: job.protocol,
                });
            }
            let answer = run(&job);
            let bytes = serde_json::to_vec(&answer).map_err(WorkerError::Encode)?;
            write_atomically(&job.answer, &bytes).map_err(WorkerError::WriteAnswer)
        }
        _ => Err(WorkerError::Usage),
    }
}
