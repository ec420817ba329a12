//! A file re-written another way for the row-group sweep (`run --row-group-rows`,
//! `--sort-by`): the options its write job carries. Only the prepared write of a sweep point
//! carries them; every other job leaves them out.

use crate::OpParams;

/// Option: rows per Parquet row group (the writer's maximum), a positive integer.
pub const ROW_GROUP_ROWS: &str = "row_group_rows";
/// Option: the column the table is sorted by (ascending, nulls first) before it is written.
pub const SORT_BY: &str = "sort_by";

/// The row-group size a write job asks for, if any (`0` or a non-number asks for none).
pub fn row_group_rows(params: &OpParams) -> Option<usize> {
    params
        .options
        .get(ROW_GROUP_ROWS)
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
}

/// The column a write job sorts the table by before writing it, if any.
pub fn sort_by(params: &OpParams) -> Option<&str> {
    params.options.get(SORT_BY).map(String::as_str)
}

/// Option on every job of a reader of a sweep point's shared files: read every `*.parquet`
/// file in the artifact directory, in name order (the native writer's one `data.parquet`, or
/// the `part-NNNNN.parquet` files of a table cut into files by the job's
/// [`crate::FileSplit`]), instead of the reader's own writes.
pub const FILE_SET: &str = "file_set";

/// The name of the `index`-th file of a Parquet table cut into files (`part-00000.parquet`):
/// names sort in row order.
pub fn part_file(index: usize) -> String {
    format!("part-{index:05}.parquet")
}
