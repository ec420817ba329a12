//! Cells of two runs matched by their whole key (dataset and its fingerprint, backend,
//! profile, layout, target, operation, threads, cache, storage, network), each pair given its
//! verdict; artifacts matched the same way for their sizes.

use super::classify::{classify, control_false_discoveries};
use super::model::{CellComparison, MemoryChange, Side, SizeChange, Verdict};
use crate::results::{CellKey, Record, SampleStatus};
use crate::stats::{CellSummary, RatioInterval, RunSummary};
use std::collections::BTreeMap;

/// Each cell's peak resident memory per ok sample, for the memory comparison.
pub fn peaks(records: &[Record]) -> BTreeMap<CellKey, Vec<f64>> {
    let mut out: BTreeMap<CellKey, Vec<f64>> = BTreeMap::new();
    for record in records {
        if let Record::Sample(s) = record {
            if let (SampleStatus::Ok, Some(_), Some(p)) = (s.status, s.round, s.peak_rss_bytes) {
                out.entry(s.cell.clone()).or_default().push(p as f64);
            }
        }
    }
    out
}

fn cells(summary: &RunSummary) -> impl Iterator<Item = &CellSummary> {
    summary.groups.iter().flat_map(|g| &g.cells)
}

fn side(c: &CellSummary) -> Side {
    Side {
        status: c.status,
        reason: c.reason.clone(),
        samples: c.rounds.len(),
        median_s: c.wall.map(|w| w.median),
        peak_rss_bytes: c.peak_rss_bytes,
        size_bytes: c.size_bytes,
        throughput: c.throughput,
    }
}

/// A median too close to the clock's resolution has no trusted ratio (the report says so too).
fn below_resolution(c: &CellSummary) -> bool {
    c.flags.iter().any(|f| f.contains("clock resolution"))
}

/// Every cell of either run: BASE's in its report order, then those only NEW has.
pub fn compare_cells(
    base: &RunSummary,
    new: &RunSummary,
    base_peaks: &BTreeMap<CellKey, Vec<f64>>,
    new_peaks: &BTreeMap<CellKey, Vec<f64>>,
    threshold: f64,
) -> Vec<CellComparison> {
    let new_cells: BTreeMap<&CellKey, &CellSummary> = cells(new).map(|c| (&c.cell, c)).collect();
    let mut out = Vec::new();
    for b in cells(base) {
        let Some(n) = new_cells.get(&b.cell) else {
            out.push(alone(b, Verdict::OnlyInBase));
            continue;
        };
        let memory = memory(base_peaks.get(&b.cell), new_peaks.get(&b.cell), threshold);
        out.push(pair(b, n, memory, threshold));
    }
    let base_keys: std::collections::BTreeSet<&CellKey> = cells(base).map(|c| &c.cell).collect();
    for n in cells(new).filter(|c| !base_keys.contains(&c.cell)) {
        out.push(alone(n, Verdict::OnlyInNew));
    }
    decide_together(&mut out, threshold);
    out
}

/// The verdicts of every classified cell, times and peak memory each as one family, decided
/// together so that the comparison's false discovery rate holds (classify.rs).
fn decide_together(cells: &mut [CellComparison], threshold: f64) {
    let timed: Vec<_> = cells.iter().map(|c| Some((c.ratio?, c.p_value?))).collect();
    for (cell, verdict) in cells.iter_mut().zip(decided(&timed, threshold)) {
        cell.verdict = verdict.unwrap_or(cell.verdict);
    }
    let memory: Vec<_> = cells
        .iter()
        .map(|c| c.memory.map(|m| (m.ratio, m.p_value)))
        .collect();
    for (cell, verdict) in cells.iter_mut().zip(decided(&memory, threshold)) {
        if let (Some(m), Some(v)) = (cell.memory.as_mut(), verdict) {
            m.verdict = v;
        }
    }
}

/// The verdict of each tested entry (`Some`) decided together; `None` where nothing was tested.
fn decided(tested: &[Option<(RatioInterval, f64)>], threshold: f64) -> Vec<Option<Verdict>> {
    let family: Vec<(RatioInterval, f64)> = tested.iter().flatten().copied().collect();
    let mut verdicts = control_false_discoveries(&family, threshold).into_iter();
    tested
        .iter()
        .map(|t| t.and_then(|_| verdicts.next()))
        .collect()
}

fn alone(c: &CellSummary, verdict: Verdict) -> CellComparison {
    let s = side(c);
    let note = (!s.ran()).then(|| {
        s.reason
            .clone()
            .unwrap_or_else(|| s.status.name().to_string())
    });
    let (base, new) = match verdict {
        Verdict::OnlyInBase => (Some(s), None),
        _ => (None, Some(s)),
    };
    CellComparison {
        cell: c.cell.clone(),
        verdict,
        note,
        base,
        new,
        ratio: None,
        p_value: None,
        memory: None,
    }
}

fn pair(
    b: &CellSummary,
    n: &CellSummary,
    memory: Option<MemoryChange>,
    threshold: f64,
) -> CellComparison {
    let (base, new) = (side(b), side(n));
    let reason = |s: &Side| {
        s.reason
            .clone()
            .unwrap_or_else(|| s.status.name().to_string())
    };
    let mut out = CellComparison {
        cell: b.cell.clone(),
        verdict: Verdict::NoChange,
        note: None,
        base: None,
        new: None,
        ratio: None,
        p_value: None,
        memory: None,
    };
    match (base.ran(), new.ran()) {
        (true, true) => {
            let times = |c: &CellSummary| c.rounds.values().copied().collect::<Vec<f64>>();
            let classified = classify(&times(b), &times(n), threshold);
            out.verdict = classified.verdict;
            out.ratio = classified.ratio;
            out.p_value = classified.p_value;
            out.note = classified.note;
            if below_resolution(b) || below_resolution(n) {
                out.verdict = Verdict::NoChange;
                out.p_value = None;
                out.note = Some("a median below 100 clock ticks: not classified".into());
            }
            out.memory = memory;
        }
        (true, false) => {
            out.verdict = Verdict::FailedInNew;
            out.note = Some(reason(&new));
        }
        (false, true) => {
            out.verdict = Verdict::FixedInNew;
            out.note = Some(format!("in BASE: {}", reason(&base)));
        }
        (false, false) => {
            out.verdict = Verdict::NotMeasured;
            out.note = Some(reason(&new));
        }
    }
    out.base = Some(base);
    out.new = Some(new);
    out
}

/// Peak memory NEW ÷ BASE under the same rule as times; `None` without enough samples.
fn memory(base: Option<&Vec<f64>>, new: Option<&Vec<f64>>, threshold: f64) -> Option<MemoryChange> {
    let (base, new) = (base?, new?);
    if base.len() < super::model::MIN_SAMPLES || new.len() < super::model::MIN_SAMPLES {
        return None;
    }
    let classified = classify(base, new, threshold);
    Some(MemoryChange {
        ratio: classified.ratio?,
        verdict: classified.verdict,
        p_value: classified.p_value?,
    })
}

/// Every artifact of either run with its exact size in each, BASE's order first.
pub fn compare_sizes(base: &RunSummary, new: &RunSummary) -> Vec<SizeChange> {
    type Key = (
        String,
        String,
        String,
        String,
        String,
        Option<u64>,
        Option<String>,
        Option<u64>,
    );
    let sized = |s: &RunSummary| -> Vec<(Key, Option<u64>)> {
        s.artifacts
            .iter()
            .map(|a| {
                (
                    (
                        a.dataset.clone(),
                        a.dataset_fingerprint.clone(),
                        a.backend.clone(),
                        a.profile.clone(),
                        a.layout.clone(),
                        a.row_group_rows,
                        a.sort_by.clone(),
                        a.parquet_files,
                    ),
                    a.size_bytes.filter(|_| a.status == SampleStatus::Ok),
                )
            })
            .collect()
    };
    let (b, n) = (sized(base), sized(new));
    let mut keys: Vec<&Key> = b.iter().map(|(k, _)| k).collect();
    for (k, _) in &n {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let find = |list: &[(Key, Option<u64>)], k: &Key| {
        list.iter()
            .find(|(x, _)| x == k)
            .and_then(|(_, size)| *size)
    };
    keys.into_iter()
        .map(|k| SizeChange {
            dataset: k.0.clone(),
            backend: k.2.clone(),
            profile: k.3.clone(),
            layout: k.4.clone(),
            row_group_rows: k.5,
            sort_by: k.6.clone(),
            parquet_files: k.7,
            base: find(&b, k),
            new: find(&n, k),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{EnvironmentRecord, SampleRecord, VerificationRecord};

    fn key(backend: &str) -> CellKey {
        CellKey::example(backend)
    }

    /// A run whose cells are `(backend, status, seconds per round)`.
    pub(crate) fn run(cells: &[(&str, SampleStatus, f64)]) -> Vec<Record> {
        let mut records = vec![Record::Environment(EnvironmentRecord {
            run_id: "r".into(),
            formatbench_version: "0".into(),
            git_commit: None,
            git_dirty: None,
            cpu_model: "cpu".into(),
            cores: 2,
            memory_bytes: 1,
            kernel: "k".into(),
            os: "o".into(),
            versions: BTreeMap::new(),
            clock_resolution_s: None,
            worker_build: None,
            settings: Default::default(),
            memory: BTreeMap::new(),
            formats: BTreeMap::new(),
        })];
        for (backend, status, seconds) in cells {
            records.push(Record::Verification(VerificationRecord {
                run_id: "r".into(),
                cell: key(backend),
                status: SampleStatus::Ok,
                reason: None,
                digest: None,
                rows: None,
                representation: Vec::new(),
                float_tolerance: None,
                other_widths: false,
                independent_check: None,
                engine_digest: None,
            }));
            for round in 1..=6u32 {
                let mut s = SampleRecord::bare("r", key(backend), Some(round), *status, None);
                s.wall_s = Some(seconds * (1.0 + 0.01 * round as f64));
                s.peak_rss_bytes = Some(1 << 20);
                records.push(Record::Sample(Box::new(s)));
            }
        }
        records
    }

    fn compared(base: &[Record], new: &[Record]) -> Vec<(String, Verdict)> {
        let (b, n) = (
            crate::stats::summarize_run(base),
            crate::stats::summarize_run(new),
        );
        compare_cells(&b, &n, &peaks(base), &peaks(new), 0.05)
            .into_iter()
            .map(|c| (c.cell.backend, c.verdict))
            .collect()
    }

    #[test]
    fn cells_match_by_key_and_the_unmatched_are_named() {
        let ok = SampleStatus::Ok;
        let base = run(&[("ipc", ok, 0.01), ("parquet", ok, 0.02), ("csv", ok, 0.1)]);
        let new = run(&[("ipc", ok, 0.01), ("parquet", ok, 0.04), ("npy", ok, 0.1)]);
        let mut got = compared(&base, &new);
        got.sort();
        assert_eq!(
            got,
            [
                ("csv".to_string(), Verdict::OnlyInBase),
                ("ipc".to_string(), Verdict::NoChange),
                ("npy".to_string(), Verdict::OnlyInNew),
                ("parquet".to_string(), Verdict::Slower),
            ]
        );
    }

    /// `records` with every cell made the row-group sweep's point `rows`, sorted by `sort_by`.
    fn at_point(mut records: Vec<Record>, rows: u64, sort_by: Option<&str>) -> Vec<Record> {
        for record in &mut records {
            let cell = match record {
                Record::Verification(v) => &mut v.cell,
                Record::Sample(s) => &mut s.cell,
                _ => continue,
            };
            cell.row_group_rows = Some(rows);
            cell.sort_by = sort_by.map(str::to_string);
        }
        records
    }

    #[test]
    fn sweep_points_are_part_of_a_cells_identity() {
        let ok = SampleStatus::Ok;
        let plain = run(&[("parquet", ok, 0.02)]);
        let small = at_point(plain.clone(), 10_000, None);
        let sorted = at_point(plain.clone(), 10_000, Some("x"));
        let verdicts = |base: &[Record], new: &[Record]| {
            let mut got: Vec<Verdict> = compared(base, new).into_iter().map(|c| c.1).collect();
            got.sort_by_key(|v| format!("{v:?}"));
            got
        };
        // The same point in both runs pairs up; another point, or none, does not.
        assert_eq!(verdicts(&small, &small), [Verdict::NoChange]);
        assert_eq!(
            verdicts(&plain, &small),
            [Verdict::OnlyInBase, Verdict::OnlyInNew]
        );
        assert_eq!(
            verdicts(&small, &sorted),
            [Verdict::OnlyInBase, Verdict::OnlyInNew]
        );
        // A cell without a point reads and writes as before the keys existed.
        let line = serde_json::to_string(&key("parquet")).unwrap();
        assert!(!line.contains("row_group_rows") && !line.contains("sort_by"));
        let old: CellKey = serde_json::from_str(&line).unwrap();
        assert_eq!(old.row_group_rows, None);
        let mut point = key("parquet");
        point.row_group_rows = Some(10_000);
        point.sort_by = Some("x".into());
        let line = serde_json::to_string(&point).unwrap();
        assert!(line.contains("\"row_group_rows\":10000") && line.contains("\"sort_by\":\"x\""));
        assert_eq!(serde_json::from_str::<CellKey>(&line).unwrap(), point);
    }

    #[test]
    fn a_cell_that_fails_in_new_is_a_regression() {
        let base = run(&[
            ("ipc", SampleStatus::Ok, 0.01),
            ("csv", SampleStatus::Failed, 0.1),
        ]);
        let new = run(&[
            ("ipc", SampleStatus::Failed, 0.01),
            ("csv", SampleStatus::Ok, 0.1),
        ]);
        let got = compared(&base, &new);
        assert!(got.contains(&("ipc".to_string(), Verdict::FailedInNew)));
        assert!(got.contains(&("csv".to_string(), Verdict::FixedInNew)));
        assert!(Verdict::FailedInNew.is_regression());
    }

    #[test]
    fn peak_memory_is_compared_by_the_same_rule() {
        let base = run(&[("ipc", SampleStatus::Ok, 0.01)]);
        let mut new = base.clone();
        for r in &mut new {
            if let Record::Sample(s) = r {
                s.peak_rss_bytes = Some(2 << 20);
            }
        }
        let (b, n) = (
            crate::stats::summarize_run(&base),
            crate::stats::summarize_run(&new),
        );
        let cells = compare_cells(&b, &n, &peaks(&base), &peaks(&new), 0.05);
        let memory = cells[0].memory.unwrap();
        assert_eq!(memory.verdict, Verdict::Slower);
        assert!((memory.ratio.estimate - 2.0).abs() < 1e-12);
        assert_eq!(cells[0].verdict, Verdict::NoChange);
    }
}
