//! Seed 004's floor table beside this run: for each library the study compared, each layout's
//! time ÷ the `.npy` floor, as the study published it and as measured here, by the study's own
//! libraries (the Python peers, ÷ `py-numpy-npy`) and by formatbench's native readers (÷ `npy`).
//! The two columns of this run separate what the format costs from what a reader costs.

use super::{cells, median, Table};
use crate::report::format;
use crate::stats::{CellSummary, RunSummary};
use std::collections::BTreeMap;

/// The operations of the study's floor table.
const OPS: [&str; 3] = ["matrix", "random_rows", "feature_project"];

/// A library of the study: its name, the peer and the native backend that use it, and the
/// study's ratios to its floor for each layout (matrix, rows, features), from its report at
/// commit 1208b89 (2,000 × 8,192 float32, Apple M4 Pro, default profiles).
struct Library {
    name: &'static str,
    peer: &'static str,
    native: &'static str,
    seed: [(&'static str, [f64; 3]); 2],
}

const LIBRARIES: [Library; 7] = [
    Library {
        name: "CSV",
        peer: "py-pandas-csv",
        native: "csv",
        seed: [
            ("wide", [300.0, 3000.0, 140.0]),
            ("array", [390.0, 3900.0, 700.0]),
        ],
    },
    Library {
        name: "Parquet",
        peer: "py-pyarrow-parquet",
        native: "parquet",
        seed: [("wide", [37.0, 370.0, 16.0]), ("array", [8.9, 85.0, 16.0])],
    },
    Library {
        name: "DuckDB",
        peer: "py-duckdb",
        native: "duckdb",
        seed: [("wide", [58.0, 630.0, 23.0]), ("array", [8.2, 63.0, 11.0])],
    },
    Library {
        name: "Zarr",
        peer: "py-zarr",
        native: "zarr",
        seed: [("wide", [750.0, 7400.0, 0.36]), ("array", [7.6, 71.0, 6.1])],
    },
    Library {
        name: "TileDB",
        peer: "py-tiledb",
        native: "",
        seed: [("wide", [660.0, 6200.0, 4.6]), ("array", [2.9, 18.0, 5.2])],
    },
    Library {
        name: "Vortex",
        peer: "py-vortex",
        native: "vortex",
        seed: [("wide", [50.0, 510.0, 61.0]), ("array", [1.4, 14.0, 2.2])],
    },
    Library {
        name: "Lance",
        peer: "py-lance",
        native: "lance",
        seed: [("wide", [150.0, 1300.0, 39.0]), ("array", [1.6, 3.8, 2.8])],
    },
];

/// One layout of a library as measured: its name, the seed's ratios, this run's peer and
/// native ratios (by [`OPS`]).
struct Measured {
    layout: &'static str,
    seed: [f64; 3],
    peer: Vec<Option<f64>>,
    native: Vec<Option<f64>>,
}

const LEGEND: &str = "each layout's wall time ÷ its floor's for the study's three floor operations: seed = seed 004's published ratio (2,000 × 8,192, its machine), peer = the study's library here ÷ py-numpy-npy, native = formatbench's reader ÷ npy (default profiles, paired by round); the best row of each library is its best layout by this run's matrix ratio (peer, else native)";

/// One table per dataset where a floor ran beside a library of the study.
pub(in crate::report) fn floor_table(summary: &RunSummary) -> Vec<Table> {
    let cells = cells(summary);
    let mut datasets: Vec<&String> = cells.keys().map(|k| &k.0).collect();
    datasets.dedup();
    let mut tables = Vec::new();
    for dataset in datasets {
        let ops_of = |backend: &str, layout: &str| {
            cells.get(&(
                dataset.clone(),
                backend.to_string(),
                "default".to_string(),
                layout.to_string(),
            ))
        };
        let floors = (ops_of("py-numpy-npy", "array"), ops_of("npy", "array"));
        if floors.0.is_none() && floors.1.is_none() {
            continue;
        }
        let ratio = |ops: Option<&BTreeMap<String, &CellSummary>>,
                     floor: Option<&BTreeMap<String, &CellSummary>>,
                     op: &str| {
            ops.and_then(|o| o.get(op))
                .zip(floor.and_then(|f| f.get(op)))
                .and_then(|(c, f)| c.ratio_over(f))
        };
        let mut rows = Vec::new();
        for library in &LIBRARIES {
            let mut measured = Vec::new();
            for &(layout, ref seed) in &library.seed {
                let peer: Vec<Option<f64>> = OPS
                    .iter()
                    .map(|op| ratio(ops_of(library.peer, layout), floors.0, op))
                    .collect();
                let native: Vec<Option<f64>> = OPS
                    .iter()
                    .map(|op| ratio(ops_of(library.native, layout), floors.1, op))
                    .collect();
                measured.push(Measured {
                    layout,
                    seed: *seed,
                    peer,
                    native,
                });
            }
            if measured
                .iter()
                .all(|m| m.peer.iter().chain(&m.native).all(Option::is_none))
            {
                continue;
            }
            // The library's best layout by this run's matrix ratio.
            let best = measured
                .iter()
                .map(|m| m.peer[0].or(m.native[0]).unwrap_or(f64::INFINITY))
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i);
            for (i, m) in measured.iter().enumerate() {
                let mark = if Some(i) == best { " (best)" } else { "" };
                let mut row = vec![library.name.to_string(), format!("{}{mark}", m.layout)];
                for k in 0..OPS.len() {
                    row.push(format::ratio(m.seed[k]));
                    for value in [m.peer[k], m.native[k]] {
                        row.push(value.map_or_else(|| format::DASH.to_string(), format::ratio));
                    }
                }
                rows.push(row);
            }
        }
        if rows.is_empty() {
            continue;
        }
        let floor_matrix = |floor: Option<&BTreeMap<String, &CellSummary>>| {
            floor
                .and_then(|f| f.get("matrix"))
                .and_then(|c| median(c))
                .map_or_else(|| format::DASH.to_string(), format::duration)
        };
        let mut headers = vec!["library".to_string(), "layout".to_string()];
        for op in OPS {
            for who in ["seed", "peer", "native"] {
                headers.push(format!("{op} {who}"));
            }
        }
        tables.push(Table {
            title: format!(
                "{dataset}: seed 004's floor table beside this run (matrix floors: py-numpy-npy {}, npy {})",
                floor_matrix(floors.0),
                floor_matrix(floors.1)
            ),
            legend: LEGEND,
            headers,
            text_columns: 2,
            rows,
        });
    }
    tables
}
