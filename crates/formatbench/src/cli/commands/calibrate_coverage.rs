//! `formatbench calibrate`'s coverage study: the share of printed 95 % intervals that contain a
//! ratio known to be 2.00, over many groups measured through the normal runner on this machine.
//! The simulation in stats/coverage.rs shows the method's coverage under modelled noise; this
//! shows it under the machine's own (process start, scheduling, frequency changes).

use super::selftest_plan::{competitor, run_options, selftest_plan, tiny_table};
use crate::run::execute_plan;
use crate::stats::{paired_ratio, RatioInterval};
use crate::Error;
use std::path::Path;

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

/// Runs the study's groups (short spins, repeated inside each sample like a short operation,
/// the second doing exactly twice the work) and collects each group's printed interval.
pub fn measure(out: &Path) -> Result<Option<Coverage>, Error> {
    // Distinct sizes give distinct dataset names, hence one group each.
    let tables = (0..GROUPS).map(|i| tiny_table(16 + i as u64)).collect();
    let mut plan = selftest_plan("calibrate-coverage", tables);
    plan.competitors = vec![
        competitor("selftest-spin", "short-x1"),
        competitor("selftest-spin", "short-x2"),
    ];
    plan.blocks = 2;
    plan.max_rounds = Some(ROUNDS);
    let options = run_options("calibrate-coverage", out);
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
