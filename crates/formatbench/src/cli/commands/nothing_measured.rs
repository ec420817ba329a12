//! A run whose every cell was unavailable or unsupported here finished without measuring
//! anything: it must not pass for a run that did (exit 2, as a setup this machine cannot
//! provide), and it says what would make its cells run.

use crate::results::SampleStatus;
use crate::stats::RunSummary;

/// What the heavy workers' unavailable cells say builds them (catalog/heavy.rs).
const BUILD_COMMAND: &str = "`workers/rust/build ";

/// Why the run counts as having measured nothing, in one line; `None` when a cell was measured
/// (or failed: that run exits 1 for its failures).
pub fn nothing_measured(summary: &RunSummary) -> Option<String> {
    let cells: Vec<_> = summary.groups.iter().flat_map(|g| &g.cells).collect();
    if cells
        .iter()
        .any(|c| matches!(c.status, SampleStatus::Ok | SampleStatus::Failed))
    {
        return None;
    }
    if cells.is_empty() {
        return Some("nothing was measured: the plan holds no cell to measure".into());
    }
    let mut features: Vec<&str> = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    for cell in &cells {
        let reason = cell.reason.as_deref().unwrap_or(cell.status.name());
        let built_by = built_by(reason);
        if built_by.is_empty() {
            let named = format!("{}: {reason}", cell.cell.backend);
            if !reasons.contains(&named) {
                reasons.push(named);
            }
        }
        for feature in built_by {
            if !features.contains(&feature) {
                features.push(feature);
            }
        }
    }
    let mut what = match cells.len() {
        1 => "nothing was measured: its one cell is unavailable or unsupported here".to_string(),
        n => format!("nothing was measured: all {n} cells are unavailable or unsupported here"),
    };
    if !features.is_empty() {
        what.push_str(&format!(
            "; build the workers they need with `workers/rust/build {}` (see \
             docs/guide/heavy-backends.md)",
            features.join(" ")
        ));
    }
    if let Some(first) = reasons.first() {
        let more = match reasons.len() {
            1 => String::new(),
            n => format!(" (and {} more reasons)", n - 1),
        };
        what.push_str(&format!("; {first}{more}"));
    }
    Some(what)
}

/// The build features a cell's reason names in its build command(s).
fn built_by(reason: &str) -> Vec<&str> {
    reason
        .split(BUILD_COMMAND)
        .skip(1)
        .filter_map(|rest| rest.split('`').next())
        .flat_map(str::split_whitespace)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_command_of_every_reason_is_gathered() {
        let reader = "it reads the tables delta-kernel writes, and that backend is unavailable: \
                      not built; build it with `workers/rust/build delta-kernel` (see docs/guide/heavy-backends.md)";
        assert_eq!(built_by(reader), ["delta-kernel"]);
        assert_eq!(
            built_by("build `workers/rust/build zarr` or `workers/rust/build lance duckdb`"),
            ["zarr", "lance", "duckdb"]
        );
        assert!(built_by("the Python peers are not installed").is_empty());
    }
}
