//! Renders a [`RunSummary`]: a plain table for the terminal, Markdown for a README, and one
//! self-contained HTML page. Every renderer is a pure function of the summary (no clock, no
//! machine lookups), so the same records always give the same bytes.

mod format;
mod html;
mod markdown;
mod terminal;

use crate::results::{ArtifactRecord, EnvironmentRecord, SampleStatus};
use crate::stats::{CellSummary, OpGroup, RunSummary};
use crate::Error;
use format::DASH;
use std::path::Path;

/// The summary table printed on stdout after a run.
pub fn terminal(summary: &RunSummary) -> String {
    terminal::render(summary)
}

/// A report meant to be pasted into a README or an issue.
pub fn markdown(summary: &RunSummary) -> String {
    markdown::render(summary)
}

/// One HTML5 file with no external resources, readable offline and in either colour scheme.
pub fn html(summary: &RunSummary) -> String {
    html::render(summary)
}

/// Writes `report.md` and `report.html` into `dir`.
pub fn write_reports(summary: &RunSummary, dir: &Path) -> Result<(), Error> {
    for (name, text) in [
        ("report.md", markdown(summary)),
        ("report.html", html(summary)),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// Reasons in tables are cut to this many characters; "Not measured" shows them whole.
const SHORT_REASON: usize = 70;

const LEGEND_NOISY: &str = "noisy: IQR > 0.5 × median";
const LEGEND_RATIO: &str = "median ÷ fastest median";

/// One cell formatted once, so every renderer shows the same numbers.
struct Row<'a> {
    backend: &'a str,
    /// The profile, plus the layout or target when the group mixes several (else rows could
    /// look identical).
    profile: String,
    status: SampleStatus,
    /// Whitespace collapsed; empty when the cell gave none.
    reason: String,
    median: String,
    noisy: bool,
    range: String,
    ratio: String,
    size: String,
    per_value: String,
    peak: String,
    method: String,
}

fn group_title(group: &OpGroup) -> String {
    format!(
        "{} · {} · threads {}",
        group.dataset, group.op, group.threads
    )
}

fn or_dash<T>(value: Option<T>, show: impl Fn(T) -> String) -> String {
    value.map(show).unwrap_or_else(|| DASH.to_string())
}

fn rows(group: &OpGroup) -> Vec<Row<'_>> {
    let varies = |field: fn(&CellSummary) -> &str| {
        group
            .cells
            .iter()
            .any(|c| field(c) != group.cells.first().map_or("", field))
    };
    let show_layout = varies(|c| &c.cell.layout);
    let show_target = varies(|c| &c.cell.target);
    group
        .cells
        .iter()
        .map(|c| {
            let mut profile = c.cell.profile.clone();
            if show_layout {
                profile = format!("{profile} · {}", c.cell.layout);
            }
            if show_target {
                profile = format!("{profile} · {}", c.cell.target);
            }
            Row {
                backend: &c.cell.backend,
                profile,
                status: c.status,
                reason: c
                    .reason
                    .as_deref()
                    .map(format::one_line)
                    .unwrap_or_default(),
                median: or_dash(c.wall, |w| format::duration(w.median)),
                noisy: c.wall.is_some_and(|w| w.noisy()),
                range: or_dash(c.wall, |w| {
                    format!("{} – {}", format::duration(w.min), format::duration(w.max))
                }),
                ratio: or_dash(c.ratio_to_best, format::ratio),
                size: or_dash(c.size_bytes, format::bytes),
                per_value: or_dash(c.bytes_per_value, format::per_value),
                peak: or_dash(c.peak_rss_bytes, format::bytes),
                method: c.method.clone().unwrap_or_else(|| DASH.to_string()),
            }
        })
        .collect()
}

/// The index of the fastest cell that ran: rows come sorted fastest first, so it is the first
/// ok cell with a median, if any.
fn winner(group: &OpGroup) -> Option<usize> {
    group
        .cells
        .iter()
        .position(|c| c.status == SampleStatus::Ok && c.wall.is_some())
}

/// The second-fastest ok cell's ratio to the winner: how decisive the win was.
fn runner_up_ratio(group: &OpGroup) -> Option<f64> {
    group
        .cells
        .iter()
        .filter(|c| c.status == SampleStatus::Ok && c.wall.is_some())
        .nth(1)
        .and_then(|c| c.ratio_to_best)
}

fn environment_rows(env: &EnvironmentRecord) -> Vec<(String, String)> {
    let commit = match (&env.git_commit, env.git_dirty) {
        (Some(c), Some(true)) => format!("{c} (dirty)"),
        (Some(c), _) => c.clone(),
        (None, _) => "unknown".to_string(),
    };
    let mut rows = vec![
        ("CPU".to_string(), env.cpu_model.clone()),
        ("Cores".to_string(), env.cores.to_string()),
        ("Memory".to_string(), format::bytes(env.memory_bytes)),
        ("Kernel".to_string(), env.kernel.clone()),
        ("OS".to_string(), env.os.clone()),
        ("formatbench".to_string(), env.formatbench_version.clone()),
        ("Git commit".to_string(), commit),
        ("Run id".to_string(), env.run_id.clone()),
    ];
    rows.extend(
        env.versions
            .iter()
            .map(|(k, v)| (format!("Version of {k}"), v.clone())),
    );
    rows.extend(
        env.settings
            .iter()
            .map(|(k, v)| (format!("Setting {k}"), v.clone())),
    );
    rows
}

fn artifact_settings(artifact: &ArtifactRecord) -> String {
    if artifact.settings.is_empty() {
        return DASH.to_string();
    }
    let pairs: Vec<String> = artifact
        .settings
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    pairs.join("; ")
}

/// An artifact's size, or why there is none.
fn artifact_size(artifact: &ArtifactRecord) -> String {
    match (artifact.status, artifact.size_bytes) {
        (_, Some(n)) => format::bytes(n),
        (SampleStatus::Ok, None) => DASH.to_string(),
        (status, None) => status.name().to_string(),
    }
}

/// Every cell that did not produce trusted timings, with the group it belongs to.
fn not_measured(summary: &RunSummary) -> Vec<(&OpGroup, &CellSummary)> {
    summary
        .groups
        .iter()
        .flat_map(|g| g.cells.iter().map(move |c| (g, c)))
        .filter(|(_, c)| c.status != SampleStatus::Ok)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{CellKey, DatasetRecord};
    use crate::stats::Summary;
    use std::collections::BTreeMap;

    pub(super) const DATASET: &str = "mixed-100000x61";

    fn cell(backend: &str, profile: &str, op: &str, threads: u32) -> CellKey {
        CellKey {
            dataset: DATASET.into(),
            dataset_fingerprint: "fp-0123".into(),
            backend: backend.into(),
            profile: profile.into(),
            layout: "default".into(),
            target: "file".into(),
            op: op.into(),
            threads,
        }
    }

    fn ok(key: CellKey, median: f64, spread: f64, ratio: f64, size: u64) -> CellSummary {
        CellSummary {
            cell: key,
            status: SampleStatus::Ok,
            reason: None,
            wall: Some(Summary {
                n: 5,
                min: median * 0.9,
                q25: median - spread / 2.0,
                median,
                q75: median + spread / 2.0,
                max: median * 1.5,
            }),
            cpu: None,
            peak_rss_bytes: Some(200 * 1024 * 1024),
            size_bytes: Some(size),
            bytes_per_value: Some(size as f64 / 6_100_000.0),
            ratio_to_best: Some(ratio),
            method: Some("mmap".into()),
            failed_samples: 0,
        }
    }

    fn not_ok(key: CellKey, status: SampleStatus, reason: &str) -> CellSummary {
        CellSummary {
            cell: key,
            status,
            reason: Some(reason.into()),
            wall: None,
            cpu: None,
            peak_rss_bytes: None,
            size_bytes: None,
            bytes_per_value: None,
            ratio_to_best: None,
            method: None,
            failed_samples: 1,
        }
    }

    /// Two groups: a read with a noisy runner-up and a failed cell, a scan with an unsupported one.
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
            settings: BTreeMap::from([("rounds".into(), "5".into())]),
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
        let artifact = ArtifactRecord {
            run_id: "run-1".into(),
            dataset: DATASET.into(),
            dataset_fingerprint: "fp-0123".into(),
            backend: "parquet".into(),
            profile: "zstd".into(),
            layout: "default".into(),
            status: SampleStatus::Ok,
            reason: None,
            size_bytes: Some(12_345_678),
            bytes_per_value: Some(2.0239),
            settings: BTreeMap::from([
                ("compression".into(), "zstd(3)".into()),
                ("row_group_rows".into(), "65536".into()),
            ]),
        };
        let read = OpGroup {
            dataset: DATASET.into(),
            op: "read".into(),
            threads: 2,
            cells: vec![
                ok(
                    cell("ipc", "plain", "read", 2),
                    0.0123,
                    0.001,
                    1.0,
                    48_000_000,
                ),
                ok(
                    cell("parquet", "zstd", "read", 2),
                    0.0456,
                    0.04,
                    3.707,
                    12_345_678,
                ),
                not_ok(
                    cell("csv", "default", "read", 2),
                    SampleStatus::Failed,
                    "worker crashed: <signal 11> | core dumped",
                ),
            ],
        };
        let scan = OpGroup {
            dataset: DATASET.into(),
            op: "scan".into(),
            threads: 1,
            cells: vec![
                ok(
                    cell("parquet", "zstd", "scan", 1),
                    1.24,
                    0.01,
                    1.0,
                    12_345_678,
                ),
                not_ok(
                    cell("feather", "lz4", "scan", 1),
                    SampleStatus::Unsupported,
                    "scan is not supported by this backend",
                ),
            ],
        };
        RunSummary {
            environment: Some(env),
            datasets: vec![dataset],
            artifacts: vec![artifact],
            groups: vec![read, scan],
        }
    }

    #[test]
    fn rows_format_numbers_once() {
        let summary = fixture();
        let rows = rows(&summary.groups[0]);
        assert_eq!(rows[0].median, "12.3 ms");
        assert_eq!(rows[1].ratio, "3.7×");
        assert!(rows[1].noisy && !rows[0].noisy);
        assert_eq!(rows[2].median, DASH);
        assert_eq!(rows[0].profile, "plain");
    }

    #[test]
    fn mixed_layouts_are_told_apart() {
        let mut group = fixture().groups.remove(0);
        group.cells[1].cell.layout = "sorted".into();
        assert_eq!(rows(&group)[1].profile, "zstd · sorted");
    }

    #[test]
    fn winner_and_runner_up() {
        let summary = fixture();
        assert_eq!(winner(&summary.groups[0]), Some(0));
        assert_eq!(runner_up_ratio(&summary.groups[0]), Some(3.707));
        assert_eq!(runner_up_ratio(&summary.groups[1]), None);
        assert_eq!(not_measured(&summary).len(), 2);
    }

    #[test]
    fn writes_both_reports() {
        let dir = tempfile::tempdir().unwrap();
        write_reports(&fixture(), dir.path()).unwrap();
        assert!(dir.path().join("report.md").is_file());
        assert!(dir.path().join("report.html").is_file());
        let missing = dir.path().join("no/such/dir");
        let err = write_reports(&fixture(), &missing).unwrap_err();
        assert!(matches!(err, Error::Io(m) if m.starts_with("cannot write")));
    }
}
