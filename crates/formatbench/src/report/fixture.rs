//! The summary every report test renders: a write, a warm and a cold read, and a scan.

use crate::results::{
    ArtifactRecord, CellKey, DatasetRecord, EnvironmentRecord, SampleStatus, ScheduleRecord,
    ScheduleSlot,
};
use crate::stats::{CellSummary, GeoMean, OpGroup, RatioInterval, RunSummary, Summary};
use std::collections::BTreeMap;

mod small;
pub(super) use small::{feature_sweep, group_of, small, sweep, Competitor, COMPETITORS};

pub(super) const DATASET: &str = "mixed-100000x61";

/// Each cell verified, then one `ok` sample per wall time, its rounds in order: the records a
/// run writes, for the summaries tests build from them.
pub(super) fn verified_samples(cells: &[(CellKey, &[f64])]) -> Vec<crate::results::Record> {
    use crate::results::{Record, SampleRecord, VerificationRecord};
    let mut records = Vec::new();
    for (cell, walls) in cells {
        records.push(Record::Verification(VerificationRecord {
            run_id: "run-1".into(),
            cell: cell.clone(),
            status: SampleStatus::Ok,
            reason: None,
            digest: None,
            rows: Some(1000),
            representation: Vec::new(),
            float_tolerance: None,
            other_widths: false,
            independent_check: None,
            engine_digest: None,
        }));
        for (round, wall) in (1..).zip(walls.iter()) {
            let mut sample =
                SampleRecord::bare("run-1", cell.clone(), Some(round), SampleStatus::Ok, None);
            sample.wall_s = Some(*wall);
            records.push(Record::Sample(Box::new(sample)));
        }
    }
    records
}

fn key(backend: &str, profile: &str, op: &str, cache: &str, threads: u32) -> CellKey {
    CellKey {
        dataset: DATASET.into(),
        dataset_fingerprint: "fp-0123".into(),
        backend: backend.into(),
        profile: profile.into(),
        layout: "default".into(),
        target: "file".into(),
        op: op.into(),
        threads,
        cache: cache.into(),
        storage: "local".into(),
        network: "n/a".into(),
        row_group_rows: None,
        parquet_files: None,
        sort_by: None,
        executors: None,
    }
}

fn interval(estimate: f64, lo: f64, hi: f64) -> Option<RatioInterval> {
    Some(RatioInterval {
        estimate,
        lo,
        hi,
        rounds: 10,
    })
}

/// The fastest of its group: ratio 1 against itself.
fn best(key: CellKey, median: f64, spread: f64, size: u64) -> CellSummary {
    ok(key, median, spread, size, interval(1.0, 1.0, 1.0))
}

fn ok(
    key: CellKey,
    median: f64,
    spread: f64,
    size: u64,
    ratio: Option<RatioInterval>,
) -> CellSummary {
    CellSummary {
        cell: key,
        status: SampleStatus::Ok,
        reason: None,
        wall: Some(Summary {
            n: 10,
            min: median * 0.9,
            q25: median - spread / 2.0,
            median,
            q75: median + spread / 2.0,
            max: median * 1.5,
        }),
        cpu: None,
        first_call: None,
        warm_call: None,
        peak_rss_bytes: Some(200 * 1024 * 1024),
        size_bytes: Some(size),
        bytes_per_value: Some(size as f64 / 6_100_000.0),
        ratio_to_best: ratio.map(|r| r.estimate),
        ratio,
        cpu_ratio: ratio,
        parallelism: Some(1.0),
        resident_fraction: None,
        read_bytes: None,
        requested_bytes: None,
        full_read: None,
        rows_returned: Some(100_000),
        // A 48 MB source of 100,000 rows.
        throughput: Some(crate::stats::Throughput {
            bytes_per_s: Some(48e6 / median),
            rows_per_s: Some(1e5 / median),
        }),
        read_amplification: None,
        object_traffic: None,
        object_traffic_is_mean: false,
        needed_bytes: None,
        needed_ranges: None,
        phases: Default::default(),
        session_queries: None,
        cluster_start_s: None,
        calls: Some(1),
        method: Some("mmap".into()),
        failed_samples: 0,
        flags: Vec::new(),
        rounds: BTreeMap::new(),
        cpu_rounds: BTreeMap::new(),
    }
}

fn not_ok(key: CellKey, status: SampleStatus, reason: &str) -> CellSummary {
    CellSummary {
        cell: key,
        status,
        reason: Some(reason.into()),
        wall: None,
        cpu: None,
        first_call: None,
        warm_call: None,
        peak_rss_bytes: None,
        size_bytes: None,
        bytes_per_value: None,
        ratio_to_best: None,
        ratio: None,
        cpu_ratio: None,
        parallelism: None,
        resident_fraction: None,
        read_bytes: None,
        requested_bytes: None,
        full_read: None,
        rows_returned: None,
        throughput: None,
        read_amplification: None,
        object_traffic: None,
        object_traffic_is_mean: false,
        needed_bytes: None,
        needed_ranges: None,
        phases: Default::default(),
        session_queries: None,
        cluster_start_s: None,
        calls: None,
        method: None,
        failed_samples: 1,
        flags: Vec::new(),
        rounds: BTreeMap::new(),
        cpu_rounds: BTreeMap::new(),
    }
}

fn group(op: &str, cache: &str, threads: u32, cells: Vec<CellSummary>) -> OpGroup {
    OpGroup {
        dataset: DATASET.into(),
        op: op.into(),
        threads,
        cache: cache.into(),
        storage: "local".into(),
        network: "n/a".into(),
        cells,
        no_clear_winner: false,
        warnings: Vec::new(),
        stopped: None,
    }
}

fn artifact(profile_backend: (&str, &str), settings: &[(&str, &str)]) -> ArtifactRecord {
    let (backend, profile) = profile_backend;
    ArtifactRecord {
        run_id: "run-1".into(),
        dataset: DATASET.into(),
        dataset_fingerprint: "fp-0123".into(),
        backend: backend.into(),
        profile: profile.into(),
        layout: "default".into(),
        row_group_rows: None,
        parquet_files: None,
        sort_by: None,
        status: SampleStatus::Ok,
        reason: None,
        size_bytes: Some(12_345_678),
        bytes_per_value: Some(2.0239),
        settings: settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

fn geomean(
    cache: &str,
    threads: u32,
    backend: &str,
    profile: &str,
    ratio: f64,
    ops: usize,
) -> GeoMean {
    GeoMean {
        dataset: DATASET.into(),
        cache: cache.into(),
        threads,
        place: String::new(),
        backend: backend.into(),
        profile: profile.into(),
        layout: "default".into(),
        target: "file".into(),
        ratio,
        ops,
    }
}

fn groups() -> Vec<OpGroup> {
    // A write whose second cell is too fast for the clock to rank.
    let mut fast = ok(
        key("npy", "default", "write", "n/a", 1),
        8.5e-7,
        0.0,
        4_000,
        None,
    );
    fast.flags = vec!["median below 100× the clock resolution (2.0e-08 s): no ratio".into()];
    let write = group(
        "write",
        "n/a",
        1,
        vec![
            best(
                key("ipc", "plain", "write", "n/a", 1),
                0.5,
                0.01,
                48_000_000,
            ),
            fast,
        ],
    );
    // A warm read with a noisy, flagged runner-up (its cache state was missed) and a crash.
    let mut ipc = best(
        key("ipc", "plain", "read", "warm", 2),
        0.0123,
        0.001,
        48_000_000,
    );
    ipc.parallelism = Some(1.9);
    ipc.resident_fraction = Some(1.0);
    let mut parquet = ok(
        key("parquet", "zstd", "read", "warm", 2),
        0.0167,
        0.01,
        12_345_678,
        interval(1.3612, 1.2961, 1.4149),
    );
    parquet.cpu_ratio = interval(0.873, 0.801, 0.949);
    parquet.resident_fraction = Some(0.4);
    parquet.flags = vec!["cache state missed: 40 % resident".into()];
    let mut warm = group(
        "read",
        "warm",
        2,
        vec![
            ipc,
            parquet,
            not_ok(
                key("csv", "default", "read", "warm", 2),
                SampleStatus::Failed,
                "worker crashed: <signal 11> | core dumped",
            ),
        ],
    );
    warm.warnings = vec![
        "competitors differ in measured parallelism (1.00–1.90, highest: \
                          ipc/plain): compare CPU-time ratios too"
            .into(),
    ];
    // A cold read too close to call.
    let mut ipc = best(
        key("ipc", "plain", "read", "cold", 2),
        0.030,
        0.001,
        48_000_000,
    );
    ipc.resident_fraction = Some(0.0);
    ipc.read_bytes = Some(48_000_000);
    ipc.read_amplification = Some(1.0);
    let mut parquet = ok(
        key("parquet", "zstd", "read", "cold", 2),
        0.031,
        0.002,
        12_345_678,
        interval(1.02, 0.97, 1.08),
    );
    parquet.resident_fraction = Some(0.02);
    parquet.read_bytes = Some(12_345_678);
    parquet.read_amplification = Some(0.26);
    let mut cold = group("read", "cold", 2, vec![ipc, parquet]);
    cold.no_clear_winner = true;
    let mut parquet = best(
        key("parquet", "zstd", "scan", "warm", 2),
        1.24,
        0.01,
        12_345_678,
    );
    parquet.resident_fraction = Some(0.99);
    let scan = group(
        "scan",
        "warm",
        2,
        vec![
            parquet,
            not_ok(
                key("feather", "lz4", "scan", "warm", 2),
                SampleStatus::Unsupported,
                "scan is not supported by this backend",
            ),
        ],
    );
    vec![write, warm, cold, scan]
}

pub(super) fn fixture() -> RunSummary {
    let env = EnvironmentRecord {
        run_id: "run-1".into(),
        formatbench_version: "0.1.0".into(),
        git_commit: Some("abc1234".into()),
        git_dirty: Some(true),
        cpu_model: "AMD EPYC 7763".into(),
        cores: 16,
        memory_bytes: 64 * 1024 * 1024 * 1024,
        kernel: "6.8.0".into(),
        os: "Ubuntu 24.04".into(),
        versions: BTreeMap::from([("arrow".into(), "60.1.0".into())]),
        clock_resolution_s: Some(2e-8),
        worker_build: Some("xxh3:feedbeef".into()),
        settings: BTreeMap::from([("rounds".to_string(), "5".to_string())]).into(),
        memory: BTreeMap::from([("vm.dirty_ratio".into(), "20".into())]),
        formats: BTreeMap::new(),
    };
    let dataset = DatasetRecord {
        run_id: "run-1".into(),
        dataset: DATASET.into(),
        dataset_fingerprint: "fp-0123".into(),
        rows: 100_000,
        columns: 61,
        source_bytes: 48_000_000,
        parameters: BTreeMap::new(),
        schema: Vec::new(),
    };
    let parquet = artifact(
        ("parquet", "zstd"),
        &[
            ("batch_rows", "8192"),
            ("codecs", "ZSTD(3)"),
            ("encodings", "PLAIN RLE"),
            ("profile_settings", "zstd <level 3> | dictionary off"),
            ("row_groups", "2"),
        ],
    );
    let ipc = artifact(
        ("ipc", "plain"),
        &[("alignment", "64"), ("blocks", "2"), ("codec", "none")],
    );
    let slot = |round| ScheduleSlot {
        cell: key("ipc", "plain", "read", "warm", 2),
        round,
        position: 0,
    };
    RunSummary {
        environment: Some(env),
        formats: BTreeMap::new(),
        datasets: vec![dataset],
        artifacts: vec![parquet, ipc],
        schedule: Some(ScheduleRecord {
            run_id: "run-1".into(),
            hash: "xxh3:0123abcd".into(),
            blocks: 2,
            slots: vec![slot(1), slot(2), slot(3)],
        }),
        groups: groups(),
        stops: Vec::new(),
        call: crate::stats::CallMode::Warm,
        // A finished run: every scheduled sample is here.
        completeness: crate::stats::Completeness {
            scheduled: true,
            planned: 3,
            measured: 3,
            short: Vec::new(),
        },
        load: crate::stats::LoadSummary {
            samples: 3,
            cpus: 8,
            load1: Some((0.2, 0.4)),
            other_cpu_share: Some((0.01, 0.03)),
            ..Default::default()
        },
        // Listed out of order on purpose: the reports sort by ratio.
        cache_ratios: Vec::new(),
        geomeans: vec![
            geomean("warm", 2, "parquet", "zstd", 1.1667, 2),
            geomean("warm", 2, "ipc", "plain", 1.0, 1),
            geomean("cold", 2, "ipc", "plain", 1.0, 1),
            geomean("cold", 2, "parquet", "zstd", 1.02, 1),
            geomean("n/a", 1, "ipc", "plain", 1.0, 1),
        ],
    }
}
