//! The plan: datasets × competitors (backend, profile, layout, target) × operations, the
//! parameters of each operation, and the order samples run in.

mod inputs;
mod schedule;
mod suite;

pub use inputs::OpInputs;
pub use schedule::{balanced_orders, slots, Slot};
pub use suite::{builtin_suite, load_suite, Suite, SuiteDataset, BUILTIN_SUITES};

use crate::datasets::DatasetSpec;
use formatbench_protocol::Op;
use std::time::Duration;

/// A competitor in a cell: everything that distinguishes two rows of the same operation table.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Competitor {
    pub backend: String,
    pub profile: String,
    pub layout: String,
    pub target: String,
}

/// Everything a run needs to know before it starts.
#[derive(Debug, Clone)]
pub struct Plan {
    pub suite: String,
    pub datasets: Vec<DatasetSpec>,
    pub competitors: Vec<Competitor>,
    pub ops: Vec<Op>,
    /// Measured samples per cell.
    pub rounds: u32,
    /// Untimed runs per cell before the measured ones (the first also verifies the result).
    pub warmup: u32,
    pub threads: u32,
    pub timeout: Duration,
    /// Seeds the choice of projected columns and taken rows.
    pub seed: u64,
}
