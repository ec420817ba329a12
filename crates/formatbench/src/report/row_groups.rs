//! The row-group sweep (`run --row-group-rows`, `--sort-by`; plan/sweep.rs): per dataset and
//! cache state, each Parquet file the sweep re-wrote beside the default one and the user's file
//! as given, with its row groups, its size, and what `range`, `take` and `project` cost on it:
//! the median time of a call and the bytes it read. What re-writing the file would buy.

use super::format::{self, DASH};
use super::layouts::Table;
use crate::document::Block;
use crate::plan::sweep::SWEEP_BACKEND;
use crate::results::{rows_text, ArtifactRecord, CellKey, SampleStatus};
use crate::stats::{CellSummary, OpGroup, RunSummary};
use formatbench_protocol::AS_GIVEN;

/// The operations the table sets against the file size.
const OPS: [&str; 3] = ["range", "take", "project"];

const LEGEND: &str = "the native parquet writer's file re-written with other rows per row group (`--row-group-rows`) and sorted by a column (`--sort-by`), beside its default file (at most 1,048,576 rows a group) and your file as given; row groups = the file's, as its footer says; each operation's median time of a call (the call the run ranks) and the bytes it read per call: fetched from storage (`read_bytes`) for cold reads, else asked for through read calls (`rchar`, page-cache hits included); a sorted file's reads are verified as sets of rows, and `take` and ranges by position are not run on it (unsupported: a position names another row there)";

/// One table per dataset and cache state where the run has points of the sweep.
pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let mut tables = Vec::new();
    for dataset in super::pick::dataset_names(summary) {
        let groups: Vec<&OpGroup> = summary
            .groups
            .iter()
            .filter(|g| g.dataset == dataset && OPS.contains(&g.op.as_str()))
            .collect();
        let swept = groups
            .iter()
            .flat_map(|g| &g.cells)
            .any(|c| c.cell.is_sweep_point());
        if !swept {
            continue;
        }
        let mut caches: Vec<(&str, String)> = Vec::new();
        for g in &groups {
            let state = (g.cache.as_str(), g.place());
            if !caches.contains(&state) {
                caches.push(state);
            }
        }
        for (cache, place) in caches {
            let of_state: Vec<&OpGroup> = groups
                .iter()
                .copied()
                .filter(|g| g.cache == cache && g.place() == place)
                .collect();
            tables.push(table(summary, &dataset, cache, &place, &of_state));
        }
    }
    tables
}

/// The files compared: the parquet writer's (default and swept) and the file as given, in
/// that order, each once.
fn files<'a>(groups: &[&'a OpGroup]) -> Vec<&'a CellKey> {
    let mut keys: Vec<&CellKey> = Vec::new();
    for cell in groups.iter().flat_map(|g| &g.cells) {
        let key = &cell.cell;
        let same = |k: &&CellKey| {
            (
                &k.profile,
                &k.layout,
                k.row_group_rows,
                k.parquet_files,
                &k.sort_by,
            ) == (
                &key.profile,
                &key.layout,
                key.row_group_rows,
                key.parquet_files,
                &key.sort_by,
            )
        };
        if key.backend == SWEEP_BACKEND && key.layout == "wide" && !keys.iter().any(same) {
            keys.push(key);
        }
    }
    keys.sort_by_key(|k| {
        (
            k.profile != AS_GIVEN,
            k.profile.clone(),
            k.is_sweep_point(),
            k.sort_by.clone(),
            k.parquet_files,
            k.row_group_rows,
        )
    });
    keys
}

fn table(
    summary: &RunSummary,
    dataset: &str,
    cache: &str,
    place: &str,
    groups: &[&OpGroup],
) -> Table {
    let mut headers: Vec<String> = [
        "backend",
        "profile",
        "rows/group",
        "sorted by",
        "row groups",
        "size",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ops: Vec<&str> = OPS
        .iter()
        .copied()
        .filter(|op| groups.iter().any(|g| g.op == *op))
        .collect();
    for op in &ops {
        headers.push(format!("{op} time"));
        headers.push(format!("{op} bytes"));
    }
    let rows = files(groups)
        .into_iter()
        .map(|key| {
            let artifact = summary.artifacts.iter().find(|a| a.is_of(key));
            let setting = |name: &str| artifact.and_then(|a| a.settings.get(name)).cloned();
            let mut row = vec![
                key.backend.clone(),
                key.profile.clone(),
                rows_per_group(key, artifact),
                match &key.sort_by {
                    Some(column) => column.clone(),
                    None if key.profile == AS_GIVEN => setting("sorted_by")
                        .map_or_else(|| DASH.to_string(), |s| format::one_line(&s)),
                    None => DASH.to_string(),
                },
                setting("row_groups").unwrap_or_else(|| DASH.to_string()),
                artifact
                    .and_then(|a| a.size_bytes)
                    .or_else(|| super::pick::size_of(summary, key))
                    .map_or_else(|| DASH.to_string(), format::bytes),
            ];
            for op in &ops {
                let cell = groups
                    .iter()
                    .filter(|g| g.op == *op)
                    .flat_map(|g| &g.cells)
                    .find(|c| same_file(&c.cell, key));
                row.extend(op_columns(cell, cache));
            }
            row
        })
        .collect();
    let place = match place {
        "" => String::new(),
        place => format!(", {place}"),
    };
    Table {
        title: format!("{dataset}: row-group sweep (cache {cache}{place})"),
        legend: LEGEND,
        headers,
        text_columns: 4,
        rows,
    }
}

/// Whether `a` reads the file `b` names (same profile, layout and sweep point).
fn same_file(a: &CellKey, b: &CellKey) -> bool {
    (
        &a.backend,
        &a.profile,
        &a.layout,
        &a.target,
        a.row_group_rows,
        a.parquet_files,
        &a.sort_by,
    ) == (
        &b.backend,
        &b.profile,
        &b.layout,
        &b.target,
        b.row_group_rows,
        b.parquet_files,
        &b.sort_by,
    )
}

/// The rows per group the file was written with: the sweep point's, the writer's default, or,
/// for the file as given, what its footer says.
fn rows_per_group(key: &CellKey, artifact: Option<&ArtifactRecord>) -> String {
    let rows = rows_per_file_group(key, artifact);
    match key.parquet_files {
        Some(files) => format!("{rows} ({})", crate::results::files_label(files)),
        None => rows,
    }
}

fn rows_per_file_group(key: &CellKey, artifact: Option<&ArtifactRecord>) -> String {
    match key.row_group_rows {
        Some(rows) => rows_text(rows),
        None if key.profile == AS_GIVEN => artifact
            .and_then(|a| a.settings.get("row_group_rows"))
            .map_or_else(|| DASH.to_string(), |s| format::one_line(s)),
        None => format!("{} (default)", rows_text(1_048_576)),
    }
}

/// A cell's median time and bytes read per call, or why it has none.
fn op_columns(cell: Option<&CellSummary>, cache: &str) -> [String; 2] {
    let Some(cell) = cell else {
        return [DASH.to_string(), DASH.to_string()];
    };
    if cell.status != SampleStatus::Ok {
        return [cell.status.name().to_string(), DASH.to_string()];
    }
    let time = cell
        .wall
        .map_or_else(|| DASH.to_string(), |w| format::duration(w.median));
    let bytes = match cache {
        "cold" => cell.read_bytes.or(cell.requested_bytes),
        _ => cell.requested_bytes,
    };
    [time, bytes.map_or_else(|| DASH.to_string(), format::bytes)]
}

/// The sweep for the terminal summary, narrow enough for it: each file, its row groups and
/// size, and the bytes each operation read per call (the times are in the operations' tables
/// above).
pub(super) fn summary_blocks(summary: &RunSummary) -> Vec<Block> {
    let mut blocks = Vec::new();
    for table in tables(summary) {
        let bytes: Vec<usize> = (0..table.headers.len())
            .filter(|&i| table.headers[i].ends_with(" bytes"))
            .collect();
        let mut headers: Vec<String> = ["file", "rows/group", "by", "groups", "size"]
            .iter()
            .map(|h| h.to_string())
            .collect();
        headers.extend(
            bytes
                .iter()
                .map(|&i| table.headers[i].trim_end_matches(" bytes").to_string()),
        );
        let rows: Vec<Vec<String>> = table
            .rows
            .iter()
            .map(|row| {
                let file = format!("{}/{}", row[0], row[1]);
                // The file as given names its declared order in the full table only.
                let by = match row[1].as_str() {
                    AS_GIVEN => DASH.to_string(),
                    _ => row[3].clone(),
                };
                let rows = row[2].trim_end_matches(" (default)").to_string();
                let mut out = vec![file, rows, by, row[4].clone(), row[5].clone()];
                out.extend(bytes.iter().map(|&i| row[i].clone()));
                out
            })
            .collect();
        let narrow = Table {
            title: format!("{}: bytes read per call", table.title),
            legend: "",
            headers,
            text_columns: 3,
            rows,
        };
        blocks.push(Block::Subheading(narrow.title.clone()));
        blocks.push(Block::Table(narrow.document()));
    }
    blocks
}
