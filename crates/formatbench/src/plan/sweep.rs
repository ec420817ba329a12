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
pub const SWEEP_BACKEND: &str = crate::catalog::SWEEP_WRITER;

/// What the sweep varies (`--row-group-rows`, `--row-group-bytes`, `--parquet-files`,
/// `--sort-by`); all empty: no sweep.
#[derive(Debug, Clone, Copy, Default)]
pub struct SweepAxes<'a> {
    pub row_group_rows: &'a [u64],
    pub row_group_bytes: &'a [u64],
    pub parquet_files: &'a [u64],
    pub sort_by: Option<&'a str>,
}

/// A point's row-group size, as asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GroupSize {
    Rows(u64),
    Bytes(u64),
}

/// Each value once, in the order given.
fn once<T: PartialEq + Copy>(values: impl IntoIterator<Item = T>) -> Vec<T> {
    values.into_iter().fold(Vec::new(), |mut kept, v| {
        if !kept.contains(&v) {
            kept.push(v);
        }
        kept
    })
}

/// The sweep's points for the competitors `chosen`: for each native `parquet` competitor on the
/// wide layout (not `as-given`), one per row-group size (in rows or bytes), per number of files
/// and per order (unsorted and, with `sort_by`, sorted). Every other chosen competitor on the
/// wide layout whose backend `reads_file_sets` (with its first profile) reads the same points'
/// files, written once by the native writer whether or not `parquet` is chosen: a Parquet
/// reader, a cluster peer at each of its executor counts. Empty when no sweep was asked for;
/// an error when none of `chosen` reads the files.
pub fn sweep_points(
    axes: SweepAxes,
    chosen: &[Competitor],
    reads_file_sets: impl Fn(&str) -> Option<bool>,
) -> Result<Vec<Competitor>, Error> {
    let SweepAxes {
        row_group_rows,
        row_group_bytes,
        parquet_files,
        sort_by,
    } = axes;
    if row_group_rows.is_empty()
        && row_group_bytes.is_empty()
        && parquet_files.is_empty()
        && sort_by.is_none()
    {
        return Ok(Vec::new());
    }
    if let Some(zero) = row_group_rows.iter().find(|&&n| n == 0) {
        return Err(Error::Input(format!(
            "--row-group-rows {zero}: a row group holds at least one row"
        )));
    }
    if row_group_bytes.contains(&0) {
        return Err(Error::Input(
            "--row-group-bytes 0: a row group holds at least one byte".into(),
        ));
    }
    if parquet_files.contains(&0) {
        return Err(Error::Input(
            "--parquet-files 0: a table is cut into at least one file".into(),
        ));
    }
    if sort_by.is_some_and(|c| c.trim().is_empty()) {
        return Err(Error::Input("--sort-by: name a column".into()));
    }
    let mut sizes: Vec<Option<GroupSize>> = once(
        row_group_rows
            .iter()
            .map(|&n| Some(GroupSize::Rows(n)))
            .chain(row_group_bytes.iter().map(|&n| Some(GroupSize::Bytes(n)))),
    );
    if sizes.is_empty() {
        sizes.push(None);
    }
    let mut files: Vec<Option<u64>> = once(parquet_files.iter().copied().map(Some));
    if files.is_empty() {
        files.push(None);
    }
    let orders: Vec<Option<&str>> = match sort_by {
        Some(column) if sizes != [None] || files != [None] => vec![None, Some(column)],
        Some(column) => vec![Some(column)],
        None => vec![None],
    };
    let wide = |c: &&Competitor| c.layout == "wide" && c.profile != AS_GIVEN;
    // The readers of the shared files: the native writer's own competitors, and each other
    // reader of file sets with one profile, `default` where it was chosen, else the first
    // (its writer's profile does not apply: the native writer writes the files, with its
    // default profile).
    let profile_of = |backend: &str| -> Option<&str> {
        let mut profiles = chosen
            .iter()
            .filter(wide)
            .filter(|c| c.backend == backend)
            .map(|c| c.profile.as_str());
        let first = profiles.next()?;
        Some(if first == "default" || profiles.any(|p| p == "default") {
            "default"
        } else {
            first
        })
    };
    let bases: Vec<&Competitor> = chosen
        .iter()
        .filter(wide)
        .filter(|c| {
            c.backend == SWEEP_BACKEND
                || (reads_file_sets(&c.backend) == Some(true)
                    && profile_of(&c.backend) == Some(c.profile.as_str()))
        })
        .collect();
    if bases.is_empty() {
        return Err(Error::Input(format!(
            "--row-group-rows, --row-group-bytes, --parquet-files and --sort-by re-write the \
             native '{SWEEP_BACKEND}' writer's file for the Parquet readers chosen on the wide \
             layout, and none is: add one (--backends {SWEEP_BACKEND}; `formatbench backends` \
             lists the others)"
        )));
    }
    let mut out = Vec::new();
    for base in bases {
        for size in &sizes {
            for files in &files {
                for order in &orders {
                    out.push(Competitor {
                        row_group_rows: match size {
                            Some(GroupSize::Rows(n)) => Some(*n),
                            _ => None,
                        },
                        row_group_bytes: match size {
                            Some(GroupSize::Bytes(n)) => Some(*n),
                            _ => None,
                        },
                        parquet_files: *files,
                        sort_by: order.map(str::to_string),
                        ..base.clone()
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The competitor with its row-group size in bytes turned into rows for `source`: about that
/// many bytes of the source's Arrow data (its canonical IPC file) per row group.
pub fn resolved(competitor: &Competitor, source_rows: u64, source_bytes: u64) -> Competitor {
    let mut out = competitor.clone();
    if let Some(bytes) = competitor.row_group_bytes {
        let per_row = source_bytes as f64 / source_rows.max(1) as f64;
        let rows = (bytes as f64 / per_row.max(f64::MIN_POSITIVE)).floor() as u64;
        out.row_group_rows = Some(rows.clamp(1, source_rows.max(1)));
    }
    out
}

/// Whether `competitor` reads a sweep point's files written by the native writer rather than
/// by itself.
pub fn reads_shared_files(competitor: &Competitor) -> bool {
    is_point(competitor) && competitor.backend != SWEEP_BACKEND
}

/// What a scratch path adds for a sweep point (`-rg10000-by-x`), so its files and jobs are
/// apart from the default file's; empty for every other competitor.
pub fn slug(competitor: &Competitor) -> String {
    let mut out = String::new();
    if let Some(files) = competitor.parquet_files {
        out.push_str(&format!("-f{files}"));
    }
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

/// The options a sweep point's write job carries to the writer: its row-group size, its
/// order and the files it cuts the table into.
pub fn write_options(competitor: &Competitor, params: &mut OpParams) {
    use formatbench_protocol::rewrite::{ROW_GROUP_ROWS, SORT_BY};
    if let Some(files) = competitor.parquet_files {
        params.files = Some(formatbench_protocol::FileSplit {
            files,
            deletions: false,
        });
    }
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
    competitor.row_group_rows.is_some()
        || competitor.row_group_bytes.is_some()
        || competitor.parquet_files.is_some()
        || competitor.sort_by.is_some()
}

/// Why a sweep point does not run `op` (with these parameters), if it does not: a sorted
/// file has no positions in the source's order.
pub fn refusal(competitor: &Competitor, op: Op, params: &OpParams) -> Option<String> {
    let by_position = match op {
        // The matrix operations' rows are positions too (the kit asks them as takes).
        Op::Take | Op::RandomRows | Op::Mixed => true,
        Op::Range => matches!(params.range, Some(RangeSpec::Position { .. })),
        _ => false,
    };
    match (&competitor.sort_by, competitor.parquet_files) {
        (Some(column), _) if by_position => Some(format!(
            "its file is sorted by {column}, so a row position there names another row than in \
             the source; '{op}' by position is not the same question (a range by --index value \
             is)"
        )),
        (None, Some(files)) if files > 1 && by_position => Some(format!(
            "its table is cut into {files} files, which address rows by value, not by a \
             position across files; '{op}' by position is not run on it (a range by --index \
             value is)"
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
            parquet_files: None,
            row_group_bytes: None,
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
        let rows = |sizes: &'static [u64], sort_by| SweepAxes {
            row_group_rows: sizes,
            sort_by,
            ..SweepAxes::default()
        };
        let none = |_: &str| Some(false);
        let points = sweep_points(rows(&[10_000, 100_000], Some("x")), &chosen, none).unwrap();
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
        let repeated = sweep_points(rows(&[10_000, 100_000, 10_000], None), &chosen, none);
        assert_eq!(repeated.unwrap().len(), 2, "each size once");
        let sorted_only = sweep_points(rows(&[], Some("x")), &chosen, none).unwrap();
        assert_eq!(sorted_only.len(), 1);
        assert_eq!(sorted_only[0].row_group_rows, None);
        assert!(sweep_points(rows(&[], None), &chosen, none)
            .unwrap()
            .is_empty());
        assert!(sweep_points(rows(&[10], None), &chosen[2..], none).is_err());
        assert!(sweep_points(rows(&[0], None), &chosen, none).is_err());
    }

    #[test]
    fn readers_of_file_sets_read_every_point_with_their_first_profile() {
        let reader = |backend: &str, profile: &str, executors| Competitor {
            backend: backend.into(),
            executors,
            ..parquet(profile)
        };
        let chosen = [
            parquet("default"),
            reader("py-pyarrow-parquet", "default", None),
            reader("py-pyarrow-parquet", "compact", None),
            reader("py-dask-parquet", "default", Some(1)),
            reader("py-dask-parquet", "default", Some(2)),
            reader("ipc", "default", None),
        ];
        let axes = SweepAxes {
            row_group_rows: &[10_000],
            row_group_bytes: &[8 << 20],
            parquet_files: &[1, 16],
            sort_by: None,
        };
        let reads = |b: &str| Some(b != "ipc");
        let points = sweep_points(axes, &chosen, reads).unwrap();
        // Listed compact first, a reader still reads the shared (default) files as `default`.
        let mut compact_first = chosen.clone();
        compact_first.swap(1, 2);
        let swapped = sweep_points(axes, &compact_first, reads).unwrap();
        assert!(swapped.iter().all(|p| p.profile == "default"));
        // Two sizes × two file counts, for parquet, pyarrow (default only) and Dask at 1 and 2.
        assert_eq!(points.len(), 4 * 4);
        assert!(points
            .iter()
            .all(|p| p.profile == "default" && p.backend != "ipc"));
        assert_eq!(points.iter().filter(|p| p.executors == Some(2)).count(), 4);
        let bytes = points
            .iter()
            .find(|p| p.row_group_bytes.is_some() && p.parquet_files == Some(16))
            .unwrap();
        assert!(
            is_point(bytes) && !reads_shared_files(bytes),
            "the writer's own"
        );
        assert!(points
            .iter()
            .filter(|p| p.backend != "parquet")
            .all(reads_shared_files));
        // 8 MiB of a source of 100 bytes a row: 83,886 rows a group.
        let resolved = resolved(bytes, 1_000_000, 100_000_000);
        assert_eq!(resolved.row_group_rows, Some(83_886));
        assert_eq!(slug(&resolved), "-f16-rg83886");
        let mut params = OpParams::default();
        write_options(&resolved, &mut params);
        assert_eq!(params.files.map(|f| f.files), Some(16));
        let files_only = SweepAxes {
            parquet_files: &[4],
            ..SweepAxes::default()
        };
        // Without native `parquet` among them, the readers still read the native writer's files.
        let without = sweep_points(files_only, &chosen[1..], reads).unwrap();
        assert_eq!(without.len(), 3);
        assert!(without.iter().all(reads_shared_files));
        assert!(sweep_points(files_only, &chosen[5..], reads).is_err());
        assert!(sweep_points(
            SweepAxes {
                parquet_files: &[0],
                ..SweepAxes::default()
            },
            &chosen,
            reads
        )
        .is_err());
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
