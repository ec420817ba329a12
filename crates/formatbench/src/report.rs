//! Renders a [`RunSummary`]: a plain table for the terminal, Markdown for a README, and one
//! self-contained HTML page. Every renderer is a pure function of the summary (no clock, no
//! machine lookups), so the same records always give the same bytes.

mod cache;
mod charts;
mod fidelity;
#[cfg(test)]
mod fixture;
mod format;
mod glance;
mod growth;
mod layouts;
mod machine;
mod overall;
mod page;
mod pareto;
mod partitions;
mod pick;
mod recommend;
mod row_groups;
mod rows;
mod rstudy;
mod scale_out;
mod sensitivity;
mod session;
mod shapes;
mod storage;
mod summary;
mod sweep;

pub use fidelity::{fidelity, Fidelity, FidelityCell, Outcome};
pub use machine::conclusions;
pub use recommend::{recommendation, Margin, Pick};

use crate::results::{ArtifactRecord, SampleStatus};
use crate::stats::{CellSummary, OpGroup, RunSummary};
use crate::Error;
/// Byte counts as every report writes them (binary units).
pub use format::bytes;
use format::DASH;
use std::path::Path;

/// One of the sections after the results, in the order both reports show them: its anchor and
/// heading, the charts placed in it (drawn first, each with its own table) and its tables. A
/// section with neither is left out.
struct Section {
    id: &'static str,
    heading: &'static str,
    place: Option<charts::Place>,
    tables: Vec<layouts::Table>,
}

/// The sections of a run's reports; a fidelity run's matrix is its own section.
fn sections(summary: &RunSummary, fidelity: Option<&Fidelity>) -> Vec<Section> {
    let section = |id, heading, place, tables| Section {
        id,
        heading,
        place,
        tables,
    };
    vec![
        section(
            "scaling",
            "Scaling with rows",
            Some(charts::Place::Scaling),
            Vec::new(),
        ),
        section("growth", "Growth with size", None, growth::tables(summary)),
        section("layouts", "Layouts", None, layouts::tables(summary)),
        section(
            "r-study",
            "The R read/write study",
            None,
            rstudy::tables(summary),
        ),
        section("scale-out", "Scale-out", None, scale_out::tables(summary)),
        section(
            "row-groups",
            "Row-group sweep",
            None,
            row_groups::tables(summary),
        ),
        section(
            "partitions",
            "Partition size",
            Some(charts::Place::Partitions),
            partitions::tables(summary),
        ),
        section(
            "sensitivity",
            "Encoding sensitivity",
            None,
            sensitivity::tables(summary),
        ),
        section(
            "shapes",
            "Random against realistic data",
            None,
            shapes::tables(summary),
        ),
        section(
            "object-storage",
            "Object storage",
            None,
            storage::tables(summary),
        ),
        section("sessions", "Sessions", None, session::tables(summary)),
        section(
            "fidelity",
            fidelity::TITLE,
            None,
            fidelity.map(Fidelity::tables).unwrap_or_default(),
        ),
    ]
}

/// The summary table printed on stdout after a run, fitted to the terminal's width (100
/// columns when stdout is not a terminal and `COLUMNS` is not set).
pub fn terminal(summary: &RunSummary) -> String {
    terminal_at(summary, crate::document::stdout_columns())
}

/// The compact Markdown report (`--export-markdown`): the answer and a narrow table per
/// operation, no relative links, for pasting into an issue.
pub fn compact_markdown(summary: &RunSummary) -> String {
    crate::document::markdown(&summary::compact(summary))
}

/// Writes [`compact_markdown`] to `path`.
pub fn export_markdown(summary: &RunSummary, path: &Path) -> Result<(), Error> {
    std::fs::write(path, compact_markdown(summary)).map_err(Error::at("write", path))
}

/// The summary fitted to `columns`.
fn terminal_at(summary: &RunSummary, columns: usize) -> String {
    crate::document::terminal_fitted(&summary::document(summary), columns)
}

/// The report as one document, which every medium's renderer draws.
pub fn document(summary: &RunSummary) -> crate::document::Document {
    page::document(summary, &sections(summary, None))
}

/// A report meant to be pasted into a README or an issue.
pub fn markdown(summary: &RunSummary) -> String {
    crate::document::markdown_page(&document(summary))
}

/// One HTML5 file with no external resources, readable offline and in either colour scheme.
pub fn html(summary: &RunSummary) -> String {
    crate::document::html(&document(summary))
}

/// Every report and export of a results file's records, written into `dir`: the one way from
/// results to reports, taken by `run` when it ends and by `report` (ranked by `call`, else
/// by the run's own choice). Returns the summary they show.
pub fn write_all(
    records: &[crate::results::Record],
    call: Option<crate::stats::CallMode>,
    dir: &Path,
) -> Result<RunSummary, Error> {
    let summary = crate::stats::summarize_run_as(records, call);
    std::fs::create_dir_all(dir)?;
    // A fidelity run's reports carry its matrix (`formatbench fidelity`, then `report`).
    let suite = records.iter().find_map(|r| match r {
        crate::results::Record::Environment(e) => Some(e.settings.suite.as_str()),
        _ => None,
    });
    let matrix = (suite == Some("fidelity")).then(|| fidelity(records));
    write_reports_of(&summary, matrix.as_ref(), dir)?;
    crate::export::write_exports(records, &summary, &recommend::picks(&summary), dir)?;
    write_recommendation(&summary, dir)?;
    Ok(summary)
}

/// `recommendation.json`: the run's recommendation as the reports word it, and every
/// dataset's pick for every priority with its margin, for tools that act on it.
fn write_recommendation(summary: &RunSummary, dir: &Path) -> Result<(), Error> {
    #[derive(serde::Serialize)]
    struct Recommendations {
        /// The sentence the reports show, for the run's `--prefer` and its largest dataset.
        recommendation: Option<String>,
        picks: Vec<recommend::Pick>,
    }
    let all = Recommendations {
        recommendation: recommendation(summary),
        picks: recommend::picks(summary),
    };
    let text = serde_json::to_string_pretty(&all).map_err(|source| Error::Encode {
        what: "recommendation.json",
        source,
    })?;
    let path = dir.join("recommendation.json");
    std::fs::write(&path, text + "\n").map_err(Error::at("write", &path))
}

/// Writes `report.md`, `report.html` and the charts `report.md` links (`chart-<n>.svg`) into
/// `dir`, and removes chart files an earlier report left there beyond the new count.
pub fn write_reports(summary: &RunSummary, dir: &Path) -> Result<(), Error> {
    write_reports_of(summary, None, dir)
}

fn write_reports_of(
    summary: &RunSummary,
    fidelity: Option<&Fidelity>,
    dir: &Path,
) -> Result<(), Error> {
    let document = page::document(summary, &sections(summary, fidelity));
    let charts = crate::document::svg_charts(&document);
    let mut files = vec![
        (
            "report.md".to_string(),
            crate::document::markdown_page(&document),
        ),
        ("report.html".to_string(), crate::document::html(&document)),
    ];
    files.extend(
        charts
            .iter()
            .map(|(_, name, drawing)| (name.clone(), drawing.standalone())),
    );
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(Error::at("write", &path))?;
    }
    let stale = std::fs::read_dir(dir)
        .map_err(Error::at("list", dir))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .and_then(charts::file_number)
                .is_some_and(|n| n > charts.len())
        });
    for path in stale {
        std::fs::remove_file(&path).map_err(Error::at("remove", &path))?;
    }
    Ok(())
}

/// Reasons in tables are cut to this many characters; "Not measured" shows them whole.
const SHORT_REASON: usize = 70;

const LEGEND_NOISY: &str = "noisy: IQR > 0.5 × median";
const LEGEND_RATIO: &str = "paired per-round ratio to the fastest format (the geometric mean \
     of the rounds' ratios) [95 % t interval] (a reference such as floor-memcpy is no format: below 1 where it is faster); — \
     when the median is too close to the clock resolution to rank";
const LEGEND_CPU: &str = "the same ratio for CPU time";
const LEGEND_PAR: &str = "CPU time ÷ wall time";
const LEGEND_FLAG: &str = "flagged: the flags are listed under the table";
const LEGEND_BYTES: &str = "bytes fetched from storage per call (cold reads: /proc/self/io \
     read_bytes); bytes asked = asked for through read calls per call, page-cache hits included \
     (rchar; `mapped` where reads go through a memory map, which read calls do not see); for \
     project, range, take and the other selective operations both stand beside the same \
     competitor's full read (X of Y)";
const NO_CLEAR_WINNER: &str = "no clear winner: the runner-up's 95 % interval includes 1";

/// `dataset · op · cache warm · threads 2`; writes (cache `n/a`) leave the cache part out, and
/// a group on object storage ends with where: `· s3 over region`.
fn group_title(group: &OpGroup) -> String {
    let title = title(&group.dataset, &group.op, &group.cache, group.threads);
    match group.place() {
        place if place.is_empty() => title,
        place => format!("{title} · {place}"),
    }
}

fn title(dataset: &str, op: &str, cache: &str, threads: u32) -> String {
    if cache == "n/a" || cache.is_empty() {
        format!("{dataset} · {op} · threads {threads}")
    } else {
        format!("{dataset} · {op} · cache {cache} · threads {threads}")
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
    // Adaptive sampling: how many rounds the group took and why it stopped there.
    notes.extend(group.stopped.iter().map(|s| format!("sampling: {s}")));
    notes
}

fn ran(c: &CellSummary) -> bool {
    c.status == SampleStatus::Ok && c.wall.is_some()
}

/// The index of the fastest cell that ran: rows come sorted fastest first, so it is the first
/// ok cell with a median, if any.
fn winner(group: &OpGroup) -> Option<usize> {
    group.cells.iter().position(|c| ran(c) && !is_reference(c))
}

/// A reference every report shows beside the formats (the memory-copy floor), never among
/// them: it is no format to choose, so it is never the winner.
fn is_reference(c: &CellSummary) -> bool {
    crate::stats::is_reference(&c.cell.backend)
}

/// The second-fastest format that ran: its ratio tells how decisive the win was.
fn runner_up(group: &OpGroup) -> Option<&CellSummary> {
    group
        .cells
        .iter()
        .filter(|c| ran(c) && !is_reference(c))
        .nth(1)
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
                .entries()
                .into_iter()
                .map(|(k, v)| (format!("Setting {k}"), v)),
        );
        rows.extend(
            env.memory
                .iter()
                .map(|(k, v)| (format!("Memory setting {k}"), v.clone())),
        );
    }
    if let Some(load) = summary.load.describe() {
        rows.push(("Machine load".to_string(), load));
    }
    if !summary.groups.is_empty() {
        rows.push((
            "Times ranked by".to_string(),
            summary.call.describe().to_string(),
        ));
    }
    if let Some(schedule) = &summary.schedule {
        rows.extend([
            ("Schedule hash".to_string(), schedule.hash.clone()),
            // An adaptive run stops groups early: the slots it planned are an upper bound,
            // the samples it measured are what the figures rest on.
            (
                "Scheduled slots".to_string(),
                format::count(schedule.slots.len() as u64),
            ),
            (
                "Measured samples".to_string(),
                format::count(summary.completeness.measured as u64),
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
/// An incomplete run's note for the "Not measured" section: one sentence, then one line per
/// cell short of its samples (all of them escaped by the caller). `None` for a complete run.
fn shortfall(summary: &RunSummary) -> Option<(String, Vec<String>)> {
    let why = summary.completeness.describe()?;
    let lines = summary
        .completeness
        .short
        .iter()
        .map(|s| {
            let k = &s.cell;
            format!(
                "{} · {} {} ({}, {}): {} of {} samples",
                title(&k.dataset, &k.op, &k.cache, k.threads),
                k.backend,
                k.profile,
                k.layout,
                k.target,
                s.measured,
                s.planned
            )
        })
        .collect();
    Some((
        format!("Incomplete: {why}. Finish it with `formatbench run --resume RUN_DIR`."),
        lines,
    ))
}

fn not_measured(summary: &RunSummary) -> Vec<(&OpGroup, &CellSummary)> {
    summary
        .groups
        .iter()
        .flat_map(|g| g.cells.iter().map(move |c| (g, c)))
        .filter(|(_, c)| c.status != SampleStatus::Ok)
        .collect()
}

#[cfg(test)]
mod tests;
