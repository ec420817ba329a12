//! The plan of every `formatbench calibrate` check: self-test workers with known behaviour,
//! run through the normal runner (calibrate.rs, calibrate_coverage.rs).

use crate::datasets::{DatasetKind, DatasetSpec};
use crate::plan::{CacheState, Competitor, Plan};
use crate::run::RunOptions;
use formatbench_protocol::Op;
use std::path::Path;
use std::time::Duration;

/// A 16-row (or so) mixed table: the self-test workers ignore its contents.
pub fn tiny_table(rows: u64) -> DatasetSpec {
    DatasetSpec::Generated {
        kind: DatasetKind::Mixed,
        rows,
        per_type: 1,
        features: 0,
        seed: 42,
        shape: Default::default(),
    }
}

/// The plan every calibration runs: self-test workers reading `datasets` warm, one thread,
/// the run's default sample rule (short spins repeat to reach it, a different number of calls
/// each, while x1 and x2 run once), one block and no competitors yet.
pub fn selftest_plan(suite: &str, datasets: Vec<DatasetSpec>) -> Plan {
    Plan {
        suite: suite.into(),
        datasets,
        competitors: Vec::new(),
        ops: vec![Op::Read],
        blocks: 1,
        max_rounds: None,
        stopping: None,
        storage: crate::plan::Storage::Local,
        caches: vec![CacheState::Warm],
        min_sample_s: crate::plan::DEFAULT_MIN_SAMPLE_S,
        warmup: 1,
        threads: 1,
        executors: vec![crate::plan::DEFAULT_EXECUTORS],
        executor_memory: None,
        cluster: None,
        timeout: Duration::from_secs(120),
        memory_limit: None,
        seed: 42,
        files: crate::plan::DEFAULT_FILES,
        session_queries: crate::plan::DEFAULT_SESSION_QUERIES,
        verify_only: false,
    }
}

pub fn run_options(suite: &str, out: &Path) -> RunOptions {
    RunOptions {
        out_dir: out.to_path_buf(),
        resume: None,
        reuse: false,
        retry_failed: false,
        keep_artifacts: false,
        settings: crate::results::RunSettings {
            suite: suite.into(),
            ..Default::default()
        },
        s3_listen: None,
    }
}

pub fn competitor(backend: &str, profile: &str) -> Competitor {
    Competitor {
        row_group_rows: None,
        parquet_files: None,
        row_group_bytes: None,
        sort_by: None,
        executors: None,
        backend: backend.into(),
        profile: profile.into(),
        layout: "wide".into(),
        target: "arrow".into(),
    }
}
