//! The history as one table, a row per cell and run, for `history.{csv,json,parquet}`.

use super::{CellHistory, Era, History, Point, RunPoint};
use crate::export::Table;

/// One row: the environment, the run and its place, the cell, its figures and its change.
struct Row<'a> {
    era: &'a Era,
    index: usize,
    run: &'a RunPoint,
    cell: &'a CellHistory,
    point: &'a Point,
}

pub fn table(history: &History) -> Table {
    let rows: Vec<Row> = history
        .eras
        .iter()
        .flat_map(|era| {
            era.cells.iter().flat_map(move |cell| {
                cell.points
                    .iter()
                    .enumerate()
                    .filter_map(move |(index, p)| {
                        Some(Row {
                            era,
                            index,
                            run: era.runs.get(index)?,
                            cell,
                            point: p.as_ref()?,
                        })
                    })
            })
        })
        .collect();
    let mut t = Table::new(rows.len());
    t.text("environment", &rows, |r| Some(r.era.environment.clone()));
    t.count("run_index", &rows, |r| Some(r.index as u64 + 1));
    t.text("run_id", &rows, |r| Some(r.run.run_id.clone()));
    t.text("git_commit", &rows, |r| r.run.commit.clone());
    t.text("dataset", &rows, |r| Some(r.cell.cell.dataset.clone()));
    t.text("dataset_fingerprint", &rows, |r| {
        Some(r.cell.cell.dataset_fingerprint.clone())
    });
    t.text("backend", &rows, |r| Some(r.cell.cell.backend.clone()));
    t.text("profile", &rows, |r| Some(r.cell.cell.profile.clone()));
    t.text("layout", &rows, |r| Some(r.cell.cell.layout.clone()));
    t.text("target", &rows, |r| Some(r.cell.cell.target.clone()));
    t.text("op", &rows, |r| Some(r.cell.cell.op.clone()));
    t.count("threads", &rows, |r| Some(u64::from(r.cell.cell.threads)));
    t.text("cache", &rows, |r| Some(r.cell.cell.cache.clone()));
    t.text("storage", &rows, |r| Some(r.cell.cell.storage.clone()));
    t.text("network", &rows, |r| Some(r.cell.cell.network.clone()));
    t.count("samples", &rows, |r| Some(r.point.samples as u64));
    t.float("median_s", &rows, |r| Some(r.point.median_s));
    t.float("q25_s", &rows, |r| Some(r.point.q25_s));
    t.float("q75_s", &rows, |r| Some(r.point.q75_s));
    t.text("change", &rows, |r| {
        r.point.change.map(|(v, _)| v.name().to_string())
    });
    t.float("change_ratio", &rows, |r| {
        r.point.change.and_then(|(_, i)| i).map(|i| i.estimate)
    });
    t.float("change_lo", &rows, |r| {
        r.point.change.and_then(|(_, i)| i).map(|i| i.lo)
    });
    t.float("change_hi", &rows, |r| {
        r.point.change.and_then(|(_, i)| i).map(|i| i.hi)
    });
    t.flag("changed", &rows, |r| Some(r.point.changed()));
    t
}
