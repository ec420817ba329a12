use super::Summary;
use crate::results::{
    ArtifactRecord, CellKey, DatasetRecord, EnvironmentRecord, Record, SampleStatus,
    VerificationRecord,
};
use std::collections::BTreeMap;

/// What the report shows of one cell.
#[derive(Debug, Clone)]
pub struct CellSummary {
    pub cell: CellKey,
    /// `ok` only when the result was verified and every sample succeeded.
    pub status: SampleStatus,
    pub reason: Option<String>,
    /// Seconds of the operation over the ok samples.
    pub wall: Option<Summary>,
    /// CPU seconds (user + system) of the operation.
    pub cpu: Option<Summary>,
    pub peak_rss_bytes: Option<u64>,
    pub size_bytes: Option<u64>,
    pub bytes_per_value: Option<f64>,
    /// This cell's median over the fastest ok median of its (dataset, op, threads) group.
    pub ratio_to_best: Option<f64>,
    pub method: Option<String>,
    pub failed_samples: usize,
}

/// All competitors of one operation on one dataset, fastest first, then the cells that did not run.
#[derive(Debug, Clone)]
pub struct OpGroup {
    pub dataset: String,
    pub op: String,
    pub threads: u32,
    pub cells: Vec<CellSummary>,
}

#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub environment: Option<EnvironmentRecord>,
    pub datasets: Vec<DatasetRecord>,
    pub artifacts: Vec<ArtifactRecord>,
    pub groups: Vec<OpGroup>,
}

impl RunSummary {
    /// True when any cell failed (a crash, a timeout or a failed verification).
    pub fn any_failed(&self) -> bool {
        self.groups
            .iter()
            .flat_map(|g| &g.cells)
            .any(|c| c.status == SampleStatus::Failed)
    }
}

fn op_order(op: &str) -> usize {
    formatbench_protocol::ALL_OPS
        .iter()
        .position(|o| o.name() == op)
        .unwrap_or(usize::MAX)
}

pub fn summarize_run(records: &[Record]) -> RunSummary {
    let mut summary = RunSummary::default();
    let mut verifications: BTreeMap<CellKey, &VerificationRecord> = BTreeMap::new();
    let mut samples: BTreeMap<CellKey, Vec<&crate::results::SampleRecord>> = BTreeMap::new();
    for record in records {
        match record {
            Record::Environment(env) => summary.environment = Some(env.clone()),
            Record::Dataset(d) => summary.datasets.push(d.clone()),
            Record::Artifact(a) => summary.artifacts.push(a.clone()),
            Record::Verification(v) => {
                verifications.insert(v.cell.clone(), v);
            }
            Record::Sample(s) => samples.entry(s.cell.clone()).or_default().push(s.as_ref()),
        }
    }
    let mut cells: Vec<CellSummary> = samples
        .into_iter()
        .map(|(key, samples)| {
            let verification = verifications.get(&key).copied();
            summarize_cell(key, &samples, verification)
        })
        .collect();
    let dataset_order: Vec<&str> = summary
        .datasets
        .iter()
        .map(|d| d.dataset.as_str())
        .collect();
    let dataset_rank = |name: &str| {
        dataset_order
            .iter()
            .position(|d| *d == name)
            .unwrap_or(usize::MAX)
    };
    cells.sort_by(|a, b| {
        (
            dataset_rank(&a.cell.dataset),
            op_order(&a.cell.op),
            a.cell.threads,
        )
            .cmp(&(
                dataset_rank(&b.cell.dataset),
                op_order(&b.cell.op),
                b.cell.threads,
            ))
    });
    for cell in cells {
        let same = summary.groups.last().is_some_and(|g: &OpGroup| {
            g.dataset == cell.cell.dataset && g.op == cell.cell.op && g.threads == cell.cell.threads
        });
        if !same {
            summary.groups.push(OpGroup {
                dataset: cell.cell.dataset.clone(),
                op: cell.cell.op.clone(),
                threads: cell.cell.threads,
                cells: Vec::new(),
            });
        }
        if let Some(group) = summary.groups.last_mut() {
            group.cells.push(cell);
        }
    }
    for group in &mut summary.groups {
        for cell in &mut group.cells {
            cell.bytes_per_value = summary
                .artifacts
                .iter()
                .find(|a| {
                    a.dataset == cell.cell.dataset
                        && a.backend == cell.cell.backend
                        && a.profile == cell.cell.profile
                        && a.layout == cell.cell.layout
                })
                .and_then(|a| a.bytes_per_value);
        }
        rank(group);
    }
    summary
}

fn summarize_cell(
    cell: CellKey,
    samples: &[&crate::results::SampleRecord],
    verification: Option<&VerificationRecord>,
) -> CellSummary {
    let ok: Vec<_> = samples
        .iter()
        .filter(|s| s.status == SampleStatus::Ok)
        .collect();
    let not_ok: Vec<_> = samples
        .iter()
        .filter(|s| s.status != SampleStatus::Ok)
        .collect();
    let walls: Vec<f64> = ok.iter().filter_map(|s| s.wall_s).collect();
    let cpus: Vec<f64> = ok
        .iter()
        .filter_map(|s| Some(s.cpu_user_s? + s.cpu_sys_s?))
        .collect();
    let mut peaks: Vec<u64> = ok.iter().filter_map(|s| s.peak_rss_bytes).collect();
    peaks.sort_unstable();
    let verified = verification.is_some_and(|v| v.status == SampleStatus::Ok);
    let (status, reason) = if let Some(first) = not_ok.first() {
        (first.status, first.reason.clone())
    } else if !verified {
        (
            SampleStatus::Failed,
            verification
                .and_then(|v| v.reason.clone())
                .or_else(|| Some("the result was never verified".into())),
        )
    } else {
        (SampleStatus::Ok, None)
    };
    let any = samples.first();
    CellSummary {
        cell,
        status,
        reason,
        wall: Summary::of(&walls),
        cpu: Summary::of(&cpus),
        peak_rss_bytes: peaks.get(peaks.len() / 2).copied(),
        size_bytes: any.and_then(|s| s.size_bytes),
        bytes_per_value: None,
        ratio_to_best: None,
        method: ok.first().and_then(|s| s.method.clone()),
        failed_samples: not_ok
            .iter()
            .filter(|s| s.status == SampleStatus::Failed)
            .count(),
    }
}

/// Sorts a group fastest first (cells that did not run last) and fills in ratios.
fn rank(group: &mut OpGroup) {
    let median = |c: &CellSummary| match (c.status, c.wall) {
        (SampleStatus::Ok, Some(w)) => Some(w.median),
        _ => None,
    };
    group.cells.sort_by(|a, b| match (median(a), median(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => (&a.cell.backend, &a.cell.profile).cmp(&(&b.cell.backend, &b.cell.profile)),
    });
    let best = group
        .cells
        .iter()
        .filter_map(median)
        .fold(f64::INFINITY, f64::min);
    for cell in &mut group.cells {
        cell.ratio_to_best = median(cell).filter(|_| best > 0.0).map(|m| m / best);
    }
}
