//! Renders a [`RunSummary`]: a plain table for the terminal, Markdown for a README, and one
//! self-contained HTML page. Every renderer is a pure function of the summary (no clock, no
//! machine lookups), so the same records always give the same bytes.

mod cache;
#[cfg(test)]
mod fixture;
mod format;
mod html;
mod markdown;
mod overall;
mod rows;
mod terminal;

use crate::results::{ArtifactRecord, SampleStatus};
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
const LEGEND_RATIO: &str = "paired per-round ratio to the fastest [95 % bootstrap interval]; \
     — when the median is too close to the clock resolution to rank";
const LEGEND_CPU: &str = "the same ratio for CPU time";
const LEGEND_PAR: &str = "CPU time ÷ wall time";
const LEGEND_FLAG: &str = "flagged: the flags are listed under the table";
const NO_CLEAR_WINNER: &str = "no clear winner: the runner-up's 95 % interval includes 1";

/// `dataset · op · cache warm · threads 2`; writes (cache `n/a`) leave the cache part out.
fn group_title(group: &OpGroup) -> String {
    if group.cache == "n/a" || group.cache.is_empty() {
        format!(
            "{} · {} · threads {}",
            group.dataset, group.op, group.threads
        )
    } else {
        format!(
            "{} · {} · cache {} · threads {}",
            group.dataset, group.op, group.cache, group.threads
        )
    }
}

/// The lines under a group's heading: the no-clear-winner note, then each warning.
fn group_notes(group: &OpGroup) -> Vec<String> {
    let mut notes = Vec::new();
    if group.no_clear_winner {
        notes.push(NO_CLEAR_WINNER.to_string());
    }
    notes.extend(
        group
            .warnings
            .iter()
            .map(|w| format!("warning: {}", format::one_line(w))),
    );
    notes
}

fn ran(c: &CellSummary) -> bool {
    c.status == SampleStatus::Ok && c.wall.is_some()
}

/// The index of the fastest cell that ran: rows come sorted fastest first, so it is the first
/// ok cell with a median, if any.
fn winner(group: &OpGroup) -> Option<usize> {
    group.cells.iter().position(ran)
}

/// The second-fastest ok cell: its ratio tells how decisive the win was.
fn runner_up(group: &OpGroup) -> Option<&CellSummary> {
    group.cells.iter().filter(|c| ran(c)).nth(1)
}

/// The environment section: the machine and build, the clock, and the schedule. Empty when
/// the run recorded neither an environment nor a schedule.
fn environment_rows(summary: &RunSummary) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    if let Some(env) = &summary.environment {
        let commit = match (&env.git_commit, env.git_dirty) {
            (Some(c), Some(true)) => format!("{c} (dirty)"),
            (Some(c), _) => c.clone(),
            (None, _) => "unknown".to_string(),
        };
        let unknown = || "unknown".to_string();
        rows.extend([
            ("CPU".to_string(), env.cpu_model.clone()),
            ("Cores".to_string(), env.cores.to_string()),
            ("Memory".to_string(), format::bytes(env.memory_bytes)),
            ("Kernel".to_string(), env.kernel.clone()),
            ("OS".to_string(), env.os.clone()),
            ("formatbench".to_string(), env.formatbench_version.clone()),
            ("Git commit".to_string(), commit),
            (
                "Worker build".to_string(),
                env.worker_build.clone().unwrap_or_else(unknown),
            ),
            (
                "Clock resolution".to_string(),
                env.clock_resolution_s
                    .map_or_else(unknown, format::duration),
            ),
            ("Run id".to_string(), env.run_id.clone()),
        ]);
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
    }
    if let Some(schedule) = &summary.schedule {
        rows.extend([
            ("Schedule hash".to_string(), schedule.hash.clone()),
            (
                "Measured slots".to_string(),
                format::count(schedule.slots.len() as u64),
            ),
            ("Schedule blocks".to_string(), schedule.blocks.to_string()),
        ]);
    }
    rows
}

/// Every setting of an artifact, for the artifacts table.
fn artifact_settings(artifact: &ArtifactRecord) -> String {
    if artifact.settings.is_empty() {
        return DASH.to_string();
    }
    let pairs: Vec<String> = artifact
        .settings
        .iter()
        .map(|(k, v)| format!("{k}={}", format::one_line(v)))
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
    use super::fixture::{fixture, DATASET};
    use super::rows::{detail_fields, manifest, rows, shows_residency, Field};
    use super::*;

    #[test]
    fn rows_format_numbers_once() {
        let summary = fixture();
        let read = &summary.groups[1];
        let rows = rows(read, &summary.artifacts);
        assert_eq!(rows[0].median, "12.3 ms");
        assert_eq!(rows[0].ratio, "1.00×");
        assert_eq!(rows[0].cpu_short, "1.0×");
        assert_eq!(rows[1].ratio, "1.36× [1.30–1.41]");
        assert_eq!(rows[1].cpu_ratio, "0.87× [0.80–0.95]");
        assert_eq!(rows[1].cpu_short, "0.87×");
        assert_eq!(rows[1].parallelism, "1.00");
        assert_eq!(rows[0].parallelism, "1.90");
        assert_eq!(rows[1].resident, "40 %");
        assert!(rows[1].noisy && !rows[0].noisy);
        assert_eq!(rows[2].median, DASH);
        assert_eq!(rows[2].ratio, DASH);
        assert_eq!(rows[0].profile, "plain");
        assert_eq!(rows[1].marked_backend(), "parquet!");
        assert_eq!(rows[0].marked_backend(), "ipc");
    }

    #[test]
    fn untrusted_ratios_show_a_dash() {
        let summary = fixture();
        let write = &summary.groups[0];
        let rows = rows(write, &summary.artifacts);
        assert_eq!(write.cells[1].status, SampleStatus::Ok);
        assert_eq!(rows[1].ratio, DASH);
        assert_eq!(rows[1].cpu_short, DASH);
        assert_eq!(rows[1].median, "850 ns");
    }

    #[test]
    fn titles_and_notes() {
        let summary = fixture();
        let titles: Vec<String> = summary.groups.iter().map(group_title).collect();
        assert_eq!(
            titles,
            [
                format!("{DATASET} · write · threads 1"),
                format!("{DATASET} · read · cache warm · threads 2"),
                format!("{DATASET} · read · cache cold · threads 2"),
                format!("{DATASET} · scan · cache warm · threads 2"),
            ]
        );
        assert_eq!(group_notes(&summary.groups[2]), [NO_CLEAR_WINNER]);
        assert_eq!(
            group_notes(&summary.groups[1]),
            [
                "warning: competitors differ in measured parallelism (1.00–1.90, highest: \
              ipc/plain): compare CPU-time ratios too"
            ]
        );
        assert!(group_notes(&summary.groups[3]).is_empty());
    }

    #[test]
    fn residency_columns_only_where_they_matter() {
        let summary = fixture();
        let has = |i: usize| detail_fields(&summary.groups[i]).contains(&Field::Resident);
        // Cold always; warm only when some cell was not resident; never for writes here.
        assert!(has(2) && has(1) && !has(3) && !has(0));
        assert!(shows_residency(&summary.groups[2]));
        assert_eq!(
            detail_fields(&summary.groups[3]).last(),
            Some(&Field::Settings)
        );
    }

    #[test]
    fn manifest_keeps_the_fairness_keys_in_order() {
        let summary = fixture();
        let key = &summary.groups[1].cells[1].cell;
        assert_eq!(
            manifest(&summary.artifacts, key),
            "profile_settings=zstd <level 3> | dictionary off; codecs=ZSTD(3); \
             encodings=PLAIN RLE; row_groups=2"
        );
        let ipc = &summary.groups[1].cells[0].cell;
        assert_eq!(manifest(&summary.artifacts, ipc), "codec=none; blocks=2");
        let csv = &summary.groups[1].cells[2].cell;
        assert_eq!(manifest(&summary.artifacts, csv), DASH);
    }

    #[test]
    fn mixed_layouts_are_told_apart() {
        let summary = fixture();
        let mut group = summary.groups[1].clone();
        group.cells[1].cell.layout = "sorted".into();
        assert_eq!(rows(&group, &summary.artifacts)[1].profile, "zstd · sorted");
    }

    #[test]
    fn winner_and_runner_up() {
        let summary = fixture();
        assert_eq!(winner(&summary.groups[1]), Some(0));
        let second = runner_up(&summary.groups[1]).map(|c| c.cell.backend.as_str());
        assert_eq!(second, Some("parquet"));
        assert!(runner_up(&summary.groups[3]).is_none());
        assert_eq!(not_measured(&summary).len(), 2);
    }

    #[test]
    fn environment_shows_clock_build_and_schedule() {
        let rows = environment_rows(&fixture());
        let get = |k: &str| {
            rows.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("Clock resolution"), Some("20.0 ns"));
        assert_eq!(get("Worker build"), Some("xxh3:feedbeef"));
        assert_eq!(get("Schedule hash"), Some("xxh3:0123abcd"));
        assert_eq!(get("Measured slots"), Some("3"));
        assert_eq!(get("Schedule blocks"), Some("2"));
        assert!(environment_rows(&RunSummary::default()).is_empty());
    }

    #[test]
    fn every_renderer_is_reproducible() {
        for render in [terminal, markdown, html] {
            assert_eq!(render(&fixture()).as_bytes(), render(&fixture()).as_bytes());
        }
    }

    #[test]
    fn writes_both_reports() -> Result<(), Error> {
        let dir = tempfile::tempdir().map_err(|e| Error::Io(e.to_string()))?;
        write_reports(&fixture(), dir.path())?;
        assert!(dir.path().join("report.md").is_file());
        assert!(dir.path().join("report.html").is_file());
        let missing = dir.path().join("no/such/dir");
        let err = write_reports(&fixture(), &missing).unwrap_err();
        assert!(matches!(err, Error::Io(m) if m.starts_with("cannot write")));
        Ok(())
    }
}
