//! `formatbench calibrate`'s coverage study: the share of printed 95 % intervals that contain a
//! ratio known to be 2.00, over many groups measured through the normal runner on this machine.
//! The simulation in stats/coverage.rs shows the method's coverage under modelled noise; this
//! shows it under the machine's own (process start, scheduling, frequency changes).

use crate::datasets::{DatasetKind, DatasetSpec};
use crate::plan::{CacheState, Competitor, Plan};
use crate::run::{execute_plan, RunOptions};
use crate::stats::{paired_ratio, RatioInterval};
use crate::Error;
use formatbench_protocol::Op;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Groups measured: each its own dataset (so its own group), 5 rounds, as the default suite's
/// groups take at least.
pub const GROUPS: usize = 20;
const ROUNDS: u32 = 5;
const KNOWN_RATIO: f64 = 2.0;
/// The share of intervals that must contain the known ratio for the check to pass: 95 %
/// intervals over 20 groups, with room for one or two misses by chance (below 90 % happens
/// with probability 7.5 % for a true 95 % interval; it flags a real shortfall at 75 %).
pub const REQUIRED_COVERAGE: f64 = 0.90;

/// What the study found.
pub struct Coverage {
    /// The interval of x2 ÷ x1 in each group that had one.
    pub intervals: Vec<RatioInterval>,
}

impl Coverage {
    pub fn covered(&self) -> usize {
        self.intervals
            .iter()
            .filter(|r| r.lo <= KNOWN_RATIO && KNOWN_RATIO <= r.hi)
            .count()
    }

    pub fn share(&self) -> f64 {
        self.covered() as f64 / self.intervals.len().max(1) as f64
    }

    pub fn ok(&self) -> bool {
        self.intervals.len() == GROUPS && self.share() >= REQUIRED_COVERAGE
    }
}

fn spin(profile: &str) -> Competitor {
    Competitor {
        backend: "selftest-spin".into(),
        profile: profile.into(),
        layout: "wide".into(),
        target: "arrow".into(),
    }
}

/// Runs the study's groups (short spins, repeated inside each sample like a short operation,
/// the second doing exactly twice the work) and collects each group's printed interval.
pub fn measure(out: &Path) -> Result<Option<Coverage>, Error> {
    let plan = Plan {
        suite: "calibrate-coverage".into(),
        datasets: (0..GROUPS)
            .map(|i| DatasetSpec::Generated {
                kind: DatasetKind::Mixed,
                // Distinct sizes give distinct dataset names, hence one group each.
                rows: 16 + i as u64,
                per_type: 1,
                features: 0,
                seed: 42,
                shape: Default::default(),
            })
            .collect(),
        competitors: vec![spin("short-x1"), spin("short-x2")],
        ops: vec![Op::Read],
        blocks: 2,
        max_rounds: Some(ROUNDS),
        stopping: None,
        storage: crate::plan::Storage::Local,
        caches: vec![CacheState::Warm],
        min_sample_s: crate::plan::DEFAULT_MIN_SAMPLE_S,
        warmup: 1,
        threads: 1,
        timeout: Duration::from_secs(120),
        memory_limit: None,
        seed: 42,
        files: crate::plan::DEFAULT_FILES,
        session_queries: crate::plan::DEFAULT_SESSION_QUERIES,
        verify_only: false,
    };
    let options = RunOptions {
        out_dir: out.to_path_buf(),
        resume: None,
        reuse: false,
        keep_artifacts: false,
        settings: BTreeMap::from([("suite".into(), "calibrate-coverage".into())]),
        s3_listen: None,
    };
    let outcome = execute_plan(&plan, &options)?;
    if outcome.interrupted {
        return Ok(None);
    }
    let records = crate::results::read_records(&outcome.results)?;
    let summary = crate::stats::summarize_run(&records);
    let intervals = summary
        .groups
        .iter()
        .filter_map(|g| {
            let find = |profile: &str| g.cells.iter().find(|c| c.cell.profile == profile);
            paired_ratio(&find("short-x2")?.rounds, &find("short-x1")?.rounds)
        })
        .collect();
    Ok(Some(Coverage { intervals }))
}
