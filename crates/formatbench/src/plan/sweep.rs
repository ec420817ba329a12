//! The row-group sweep (`run --row-group-rows 10k,100k,1M`, `--sort-by COLUMN`): the native
//! Parquet file re-written with other row-group sizes and orders, each such file a competitor
//! of its own (its `row_group_rows` and `sort_by` keys), read beside the default file and, with
//! `--input`, the user's own (`as-given`), so the report shows what re-writing the file buys.
//!
//! A sweep point's file is written once, untimed, and only read: its `write` cell is not
//! measured. A file sorted by a column holds the source's rows in another order, so its reads
//! are verified as sets of rows (as the unordered reads of Delta tables are), and the reads
//! that address rows by position (`take`, a `range` by position) are unsupported there: a
//! position names another row in it. A `range` by the `--index` value asks the same question
//! whatever the order.

use super::Competitor;
use crate::Error;
use formatbench_protocol::{Op, OpParams, RangeSpec, AS_GIVEN};

/// The one backend the sweep re-writes: the native Parquet writer.
pub const SWEEP_BACKEND: &str = "parquet";

/// The sweep's points for the competitors `chosen`: for each native `parquet` competitor on the
/// wide layout (not `as-given`), one per row-group size, unsorted and (with `sort_by`) sorted,
/// or, with `sort_by` alone, the default size sorted. Empty when no sweep was asked for.
pub fn sweep_points(
    sizes: &[u64],
    sort_by: Option<&str>,
    chosen: &[Competitor],
) -> Result<Vec<Competitor>, Error> {
    if sizes.is_empty() && sort_by.is_none() {
        return Ok(Vec::new());
    }
    if let Some(zero) = sizes.iter().find(|&&n| n == 0) {
        return Err(Error::Input(format!(
            "--row-group-rows {zero}: a row group holds at least one row"
        )));
    }
    if sort_by.is_some_and(|c| c.trim().is_empty()) {
        return Err(Error::Input("--sort-by: name a column".into()));
    }
    // Each size once, in the order given.
    let mut sizes = sizes.iter().fold(Vec::new(), |mut kept, &n| {
        if !kept.contains(&Some(n)) {
            kept.push(Some(n));
        }
        kept
    });
    if sizes.is_empty() {
        sizes.push(None);
    }
    let orders: Vec<Option<&str>> = match sort_by {
        Some(column) if sizes != [None] => vec![None, Some(column)],
        Some(column) => vec![Some(column)],
        None => vec![None],
    };
    let mut out = Vec::new();
    let bases = chosen
        .iter()
        .filter(|c| c.backend == SWEEP_BACKEND && c.layout == "wide" && c.profile != AS_GIVEN);
    for base in bases {
        for size in &sizes {
            for order in &orders {
                out.push(Competitor {
                    row_group_rows: *size,
                    sort_by: order.map(str::to_string),
                    ..base.clone()
                });
            }
        }
    }
    if out.is_empty() {
        return Err(Error::Input(format!(
            "--row-group-rows and --sort-by re-write the native '{SWEEP_BACKEND}' backend's file \
             on the wide layout: add it (--backends {SWEEP_BACKEND})"
        )));
    }
    Ok(out)
}

/// What a scratch path adds for a sweep point (`-rg10000-by-x`), so its files and jobs are
/// apart from the default file's; empty for every other competitor.
pub fn slug(competitor: &Competitor) -> String {
    let mut out = String::new();
    if let Some(rows) = competitor.row_group_rows {
        out.push_str(&format!("-rg{rows}"));
    }
    if let Some(column) = &competitor.sort_by {
        let safe: String = column
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        // The column's own spelling decides apart names that make the same safe text.
        let hash = xxhash_rust::xxh3::xxh3_64(column.as_bytes()) & 0xffff;
        out.push_str(&format!("-by-{safe}-{hash:04x}"));
    }
    out
}

/// The options a sweep point's write job carries to the writer.
pub fn write_options(competitor: &Competitor, params: &mut OpParams) {
    use formatbench_protocol::rewrite::{ROW_GROUP_ROWS, SORT_BY};
    if let Some(rows) = competitor.row_group_rows {
        params
            .options
            .insert(ROW_GROUP_ROWS.into(), rows.to_string());
    }
    if let Some(column) = &competitor.sort_by {
        params.options.insert(SORT_BY.into(), column.clone());
    }
}

/// Whether `competitor` is a point of the sweep (its `write` is then not measured).
pub fn is_point(competitor: &Competitor) -> bool {
    competitor.row_group_rows.is_some() || competitor.sort_by.is_some()
}

/// Why a sweep point does not run `op` (with these parameters), if it does not: a sorted
/// file has no positions in the source's order.
pub fn refusal(competitor: &Competitor, op: Op, params: &OpParams) -> Option<String> {
    let by_position = match op {
        Op::Take => true,
        Op::Range => matches!(params.range, Some(RangeSpec::Position { .. })),
        _ => false,
    };
    match &competitor.sort_by {
        Some(column) if by_position => Some(format!(
            "its file is sorted by {column}, so a row position there names another row than in \
             the source; '{op}' by position is not the same question (a range by --index value \
             is)"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parquet(profile: &str) -> Competitor {
        Competitor {
            backend: "parquet".into(),
            profile: profile.into(),
            layout: "wide".into(),
            target: "arrow".into(),
            row_group_rows: None,
            sort_by: None,
            executors: None,
        }
    }

    #[test]
    fn points_are_sizes_times_orders_of_native_parquet_only() {
        let chosen = [parquet("default"), parquet(AS_GIVEN), {
            let mut ipc = parquet("default");
            ipc.backend = "ipc".into();
            ipc
        }];
        let points = sweep_points(&[10_000, 100_000], Some("x"), &chosen).unwrap();
        let got: Vec<(Option<u64>, Option<&str>)> = points
            .iter()
            .map(|p| (p.row_group_rows, p.sort_by.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (Some(10_000), None),
                (Some(10_000), Some("x")),
                (Some(100_000), None),
                (Some(100_000), Some("x")),
            ]
        );
        assert!(points
            .iter()
            .all(|p| p.backend == "parquet" && p.profile == "default"));
        let repeated = sweep_points(&[10_000, 100_000, 10_000], None, &chosen).unwrap();
        assert_eq!(repeated.len(), 2, "each size once");
        let sorted_only = sweep_points(&[], Some("x"), &chosen).unwrap();
        assert_eq!(sorted_only.len(), 1);
        assert_eq!(sorted_only[0].row_group_rows, None);
        assert!(sweep_points(&[], None, &chosen).unwrap().is_empty());
        assert!(sweep_points(&[10], None, &chosen[2..]).is_err());
        assert!(sweep_points(&[0], None, &chosen).is_err());
    }

    #[test]
    fn sorted_points_refuse_reads_by_position() {
        let mut sorted = parquet("default");
        sorted.sort_by = Some("x".into());
        let by_position = OpParams {
            range: Some(RangeSpec::Position { start: 0, end: 5 }),
            ..OpParams::default()
        };
        let by_index = OpParams {
            range: Some(RangeSpec::Index {
                column: "id".into(),
                start: 0,
                end: 5,
            }),
            ..OpParams::default()
        };
        assert!(refusal(&sorted, Op::Take, &OpParams::default()).is_some());
        assert!(refusal(&sorted, Op::Range, &by_position).is_some());
        assert!(refusal(&sorted, Op::Range, &by_index).is_none());
        assert!(refusal(&sorted, Op::Project, &OpParams::default()).is_none());
        let mut sized = parquet("default");
        sized.row_group_rows = Some(10);
        assert!(refusal(&sized, Op::Take, &OpParams::default()).is_none());
        assert!(is_point(&sized) && is_point(&sorted) && !is_point(&parquet("default")));
    }
}
