//! Running samples: every measured sample is a fresh worker process, started through the tiny
//! launcher so its peak memory is its own; OS accounting, timeouts and interrupts are handled here.

pub mod beside;
mod cache;
mod catalog;
mod launch;
mod load;
pub mod lock;
pub mod needed;
mod runner;
pub(crate) mod storage;

pub use crate::interrupt::{install_interrupt_handler, interrupted};
pub use cache::prepare as prepare_cache;
pub use catalog::{catalog, catalog_with, find, worker_command};
pub use launch::{run_job, Limits, ProcessStats, SampleOutcome};
pub use runner::{execute_plan, RunOptions, RunOutcome, PLAN_FILE};

/// Hidden first arguments under which the formatbench binary acts as the launcher or a worker.
/// One binary keeps `cargo run` and installs self-contained; each role lives in its own crate.
pub const LAUNCH_ARG: &str = "__launch";
pub const WORKER_ARG: &str = "__worker";
/// Starts formatbench's S3 server (`--storage s3`).
pub const S3_SERVER_ARG: &str = "__s3-server";
