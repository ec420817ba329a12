//! formatbench: which storage format, layout and reader is fastest and smallest for this data?
//!
//! A sample flows `datasets → plan → run → results → stats → report`: a dataset becomes a
//! canonical Arrow IPC source; the plan crosses it with backends, profiles and operations; the
//! runner measures each sample in a fresh worker process; results are appended to results.jsonl;
//! statistics summarise them; reports render the summary.

pub mod catalog;
pub mod cli;
pub mod compare;
pub mod datasets;
pub mod document;
mod environment;
mod error;
pub mod export;
pub mod history;
pub mod interrupt;
pub mod peers;
pub mod plan;
pub mod progress;
pub mod report;
pub mod results;
pub mod rng;
pub mod run;
pub mod stats;
pub mod units;
pub mod verify;

pub use error::Error;
