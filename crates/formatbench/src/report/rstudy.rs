//! Seed 001's conclusions beside this run: the R read/write study's claims about its long table
//! (which format reads fastest, how far Parquet trails Feather, what yaml = TRUE and RDS cost,
//! where DuckDB and vroom land, and its three groups of file sizes), each set beside what this
//! run measured on its largest long table, through every route it ran: R's own packages, pyarrow
//! and formatbench's readers.

use super::layouts::Table;
use super::{format, pick};
use crate::stats::{CellSummary, RunSummary};

const LEGEND: &str = "each conclusion of the R read/write study (seed 001: 5,000,000 rows, R 4.2 on an 8-core Intel Mac, {microbenchmark}, 10 repeats) beside this run's largest long table: wall-time ratios paired by round; a format is measured by every route this run took (r-… = R's packages, py-… = pyarrow, bare = formatbench's own readers; ipc is Feather v2); rank = place among this run's competitors on the operation, fastest first; — where no route ran";

/// A format of the study and the (backend, profile) competitors that measure it here.
struct Format {
    name: &'static str,
    routes: &'static [(&'static str, &'static str)],
}

const FEATHER: Format = Format {
    name: "feather",
    // Paired by position with PARQUET's routes; the memory-mapped reads of the same file last.
    routes: &[
        ("r-arrow-feather", "default"),
        ("py-pyarrow-feather", "default"),
        ("ipc", "default"),
        ("ipc-mmap", "default"),
        ("py-pyarrow-feather-mmap", "default"),
    ],
};
const PARQUET: Format = Format {
    name: "arrow-parquet",
    routes: &[
        ("r-arrow-parquet", "default"),
        ("py-pyarrow-parquet", "default"),
        ("parquet", "default"),
    ],
};
const QS: Format = Format {
    name: "qs",
    routes: &[("r-qs", "default")],
};
const FST: Format = Format {
    name: "fst",
    routes: &[("r-fst", "default")],
};
const RDS: Format = Format {
    name: "rds",
    routes: &[("r-rds", "default")],
};
const DATA_TABLE: Format = Format {
    name: "data.table",
    routes: &[("r-data.table", "default")],
};
const VROOM: Format = Format {
    name: "vroom",
    routes: &[("r-vroom", "default")],
};
const ARROW_CSV: Format = Format {
    name: "arrow-csv",
    routes: &[("py-pyarrow-csv", "default")],
};
const DUCKDB: Format = Format {
    name: "duckdb",
    routes: &[("duckdb", "default"), ("py-duckdb", "default")],
};

/// The study's three groups of file sizes, smallest first.
const SIZE_GROUPS: [&[Format]; 3] = [
    &[QS, RDS, PARQUET],
    &[FST, FEATHER, DUCKDB],
    &[DATA_TABLE, VROOM, ARROW_CSV],
];

/// The cells of one operation on one dataset, ranked (fastest first) among those that ran.
struct Ranked<'a> {
    cells: Vec<&'a CellSummary>,
}

impl<'a> Ranked<'a> {
    fn of(summary: &'a RunSummary, dataset: &str, op: &str) -> Self {
        let mut cells: Vec<&CellSummary> = pick::group(summary, dataset, op)
            .map(|g| pick::ran(&g.cells).collect())
            .unwrap_or_default();
        cells.sort_by(|a, b| median(a).total_cmp(&median(b)));
        Ranked { cells }
    }

    fn find(&self, backend: &str, profile: &str) -> Option<&'a CellSummary> {
        self.cells
            .iter()
            .copied()
            .find(|c| c.cell.backend == backend && c.cell.profile == profile)
    }

    /// The 1-based place of (backend, profile), fastest first.
    fn rank(&self, backend: &str, profile: &str) -> Option<usize> {
        self.cells
            .iter()
            .position(|c| c.cell.backend == backend && c.cell.profile == profile)
            .map(|i| i + 1)
    }

    /// The fastest route of a format that ran.
    fn best(&self, format: &Format) -> Option<&'a CellSummary> {
        self.cells.iter().copied().find(|c| is_route(format, c))
    }

    /// "4th of 14".
    fn place(&self, backend: &str, profile: &str) -> Option<String> {
        self.rank(backend, profile)
            .map(|r| format!("{} of {}", ordinal(r), self.cells.len()))
    }
}

fn median(cell: &CellSummary) -> f64 {
    cell.wall.as_ref().map_or(f64::INFINITY, |w| w.median)
}

fn is_route(format: &Format, cell: &CellSummary) -> bool {
    format
        .routes
        .iter()
        .any(|&(b, p)| cell.cell.backend == b && cell.cell.profile == p)
}

fn label(cell: &CellSummary) -> String {
    format!("{}/{}", cell.cell.backend, cell.cell.profile)
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn verdict(holds: Option<bool>) -> String {
    match holds {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => format::DASH.into(),
    }
}

fn or_dash(parts: Vec<String>) -> String {
    if parts.is_empty() {
        format::DASH.to_string()
    } else {
        parts.join("; ")
    }
}

/// Each route's ratio of `slow` over `fast`, route by route (R's, pyarrow's, formatbench's):
/// "py-pyarrow: 1.8×; native: 1.3×".
fn route_ratios(ranked: &Ranked, slow: &Format, fast: &Format) -> Vec<(String, f64)> {
    slow.routes
        .iter()
        .zip(fast.routes)
        .filter_map(|(&(sb, sp), &(fb, fp))| {
            let (s, f) = (ranked.find(sb, sp)?, ranked.find(fb, fp)?);
            Some((format!("{sb} ÷ {fb}"), s.ratio_over(f)?))
        })
        .collect()
}

fn ratios_text(ratios: &[(String, f64)]) -> String {
    or_dash(
        ratios
            .iter()
            .map(|(what, r)| format!("{what} {}", format::ratio(*r)))
            .collect(),
    )
}

/// The largest long table the run measured.
fn largest_long(summary: &RunSummary) -> Option<String> {
    pick::dataset_names(summary)
        .into_iter()
        .filter(|d| pick::parse_name(d).is_some_and(|(kind, _)| kind == "long"))
        .filter_map(|d| pick::shape(summary, &d).map(|(rows, _)| (rows, d)))
        .max()
        .map(|(_, d)| d)
}

/// The table, when the run measured the long table through at least two of the study's formats.
pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let Some(dataset) = largest_long(summary) else {
        return Vec::new();
    };
    let read = Ranked::of(summary, &dataset, "read");
    let write = Ranked::of(summary, &dataset, "write");
    let studied = [
        FEATHER, PARQUET, QS, FST, RDS, DATA_TABLE, VROOM, ARROW_CSV, DUCKDB,
    ];
    let formats_read = studied.iter().filter(|f| read.best(f).is_some()).count();
    if formats_read < 2 {
        return Vec::new();
    }
    let rows = vec![
        fastest_reader(&read),
        parquet_behind_feather(&read),
        fastest_writers(&write),
        yaml_on_reads(&read),
        rds_slowest(&read, &write),
        middle_of_the_pack(&read, &write),
        size_groups(summary, &dataset),
    ];
    let rows_text = pick::shape(summary, &dataset)
        .map_or_else(|| dataset.clone(), |(rows, _)| format::count(rows));
    vec![Table {
        title: format!("{dataset}: seed 001's conclusions beside this run ({rows_text} rows)"),
        legend: LEGEND,
        headers: ["conclusion (seed 001)", "seed", "here", "holds here"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        text_columns: 4,
        rows,
    }]
}

fn fastest_reader(read: &Ranked) -> Vec<String> {
    let fastest = read.cells.first();
    let feather = read.best(&FEATHER);
    let here = match (fastest, feather) {
        (Some(f), Some(feather)) => format!(
            "fastest: {} ({}); best feather route {} is {}",
            label(f),
            format::duration(median(f)),
            label(feather),
            read.place(&feather.cell.backend, &feather.cell.profile)
                .unwrap_or_default()
        ),
        (Some(f), None) => format!("fastest: {} (no feather route ran)", label(f)),
        _ => format::DASH.to_string(),
    };
    let holds = feather
        .zip(fastest)
        .map(|(f, first)| std::ptr::eq(f, *first));
    vec![
        "read: feather is the clear winner".into(),
        "fastest".into(),
        here,
        verdict(holds),
    ]
}

fn parquet_behind_feather(read: &Ranked) -> Vec<String> {
    let ratios = route_ratios(read, &PARQUET, &FEATHER);
    // The claim is about the direction and the factor; it holds where Parquet is at least
    // 1.5× slower by every route that ran.
    let holds = (!ratios.is_empty()).then(|| ratios.iter().all(|(_, r)| *r >= 1.5));
    vec![
        "read: arrow-parquet is next best, 2.5× slower than feather".into(),
        "2.5×".into(),
        ratios_text(&ratios),
        verdict(holds),
    ]
}

fn fastest_writers(write: &Ranked) -> Vec<String> {
    let best_of_three = [QS, FST, FEATHER]
        .iter()
        .filter_map(|f| write.best(f))
        .min_by(|a, b| median(a).total_cmp(&median(b)));
    let mut parts = Vec::new();
    if let Some(first) = write.cells.first() {
        parts.push(format!("fastest: {}", label(first)));
    }
    let mut behind = Vec::new();
    if let Some(best) = best_of_three {
        for studied in [DATA_TABLE, PARQUET] {
            if let Some(cell) = write.best(&studied) {
                if let Some(r) = cell.ratio_over(best) {
                    behind.push(r);
                    parts.push(format!(
                        "{} ÷ {} {}",
                        label(cell),
                        label(best),
                        format::ratio(r)
                    ));
                }
            }
        }
    }
    let holds = best_of_three
        .zip(write.cells.first())
        .map(|(best, first)| std::ptr::eq(best, *first) && behind.iter().all(|r| *r >= 1.5));
    vec![
        "write: qs, fst and feather write fastest; arrow and data.table 2–3× slower".into(),
        "2–3×".into(),
        or_dash(parts),
        verdict(holds),
    ]
}

fn yaml_on_reads(read: &Ranked) -> Vec<String> {
    let pair = read
        .find("r-data.table", "yaml")
        .zip(read.find("r-data.table", "default"))
        .and_then(|(yaml, plain)| yaml.ratio_over(plain));
    vec![
        "read: data.table's yaml = TRUE makes no difference".into(),
        "1.0×".into(),
        pair.map_or_else(
            || format::DASH.to_string(),
            |r| format!("yaml ÷ default {}", format::ratio(r)),
        ),
        // Within 10 % either way: the study's "doesn't make any difference".
        verdict(pair.map(|r| (0.9..=1.1).contains(&r))),
    ]
}

fn rds_slowest(read: &Ranked, write: &Ranked) -> Vec<String> {
    let mut parts = Vec::new();
    let mut slowest = Vec::new();
    for (op, ranked) in [("read", read), ("write", write)] {
        let Some(rds) = ranked.best(&RDS) else {
            continue;
        };
        let factor = ranked
            .best(&FEATHER)
            .and_then(|f| rds.ratio_over(f))
            .map(|r| format!(", {} feather's", format::ratio(r)))
            .unwrap_or_default();
        let place = ranked
            .place(&rds.cell.backend, &rds.cell.profile)
            .unwrap_or_default();
        parts.push(format!("{op}: rds {place}{factor}"));
        // Slowest of the study's formats: both RDS profiles count as RDS.
        let last_other = ranked.cells.iter().rposition(|c| c.cell.backend != "r-rds");
        let first_rds = ranked.cells.iter().position(|c| c.cell.backend == "r-rds");
        slowest.push(first_rds.zip(last_other).is_none_or(|(r, o)| r > o));
    }
    let holds = (!slowest.is_empty()).then(|| slowest.iter().all(|s| *s));
    vec![
        "rds is the slowest, 20–30× slower than arrow".into(),
        "20–30×".into(),
        or_dash(parts),
        verdict(holds),
    ]
}

fn middle_of_the_pack(read: &Ranked, write: &Ranked) -> Vec<String> {
    let mut parts = Vec::new();
    let mut middle = Vec::new();
    for (op, ranked) in [("read", read), ("write", write)] {
        let n = ranked.cells.len();
        for &(backend, profile) in DUCKDB.routes.iter().chain(VROOM.routes) {
            if let Some(rank) = ranked.rank(backend, profile) {
                parts.push(format!("{op}: {backend} {} of {n}", ordinal(rank)));
                // Neither in the fastest nor in the slowest quarter.
                let quarter = n.div_ceil(4);
                middle.push(rank > quarter && rank + quarter <= n);
            }
        }
    }
    let holds = (!middle.is_empty()).then(|| middle.iter().all(|m| *m));
    vec![
        "duckdb and vroom are the middle of the pack".into(),
        "middle".into(),
        or_dash(parts),
        verdict(holds),
    ]
}

fn size_groups(summary: &RunSummary, dataset: &str) -> Vec<String> {
    // Each group's measured sizes, by every route of its formats that wrote a file here.
    let sized: Vec<Vec<(String, u64)>> = SIZE_GROUPS
        .iter()
        .map(|formats| {
            formats
                .iter()
                .flat_map(|f| f.routes.iter().map(move |route| (f.name, route)))
                .filter_map(|(name, &(backend, profile))| {
                    let size = summary
                        .groups
                        .iter()
                        .filter(|g| g.dataset == dataset)
                        .flat_map(|g| &g.cells)
                        .find(|c| c.cell.backend == backend && c.cell.profile == profile)
                        .and_then(|c| pick::size_of(summary, &c.cell))?;
                    Some((format!("{name} ({backend})"), size))
                })
                .collect()
        })
        .collect();
    let here: Vec<String> = sized
        .iter()
        .enumerate()
        .filter(|(_, group)| !group.is_empty())
        .map(|(i, group)| {
            let members: Vec<String> = group
                .iter()
                .map(|(name, size)| format!("{name} {}", format::bytes(*size)))
                .collect();
            format!("group {}: {}", i + 1, members.join(", "))
        })
        .collect();
    // The groups hold where every size of a group is below every size of the next one measured.
    let present: Vec<&Vec<(String, u64)>> = sized.iter().filter(|g| !g.is_empty()).collect();
    let holds = (present.len() >= 2).then(|| {
        present.windows(2).all(|pair| {
            let below = pair[0].iter().map(|(_, s)| *s).max();
            let above = pair[1].iter().map(|(_, s)| *s).min();
            below.zip(above).is_some_and(|(b, a)| b < a)
        })
    });
    vec![
        "sizes: three groups, smallest [qs, rds, arrow-parquet], then [fst, feather, duckdb], then [data.table, vroom, arrow-csv]".into(),
        "3 groups".into(),
        or_dash(here),
        verdict(holds),
    ]
}

#[cfg(test)]
mod tests;
