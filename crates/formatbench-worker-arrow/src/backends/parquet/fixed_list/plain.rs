//! An uncompressed, plain-encoded fixed-size float list read as a `.npy` is: each page's
//! values are one stretch of little-endian floats at the page's end, so after its header and
//! levels are read and checked (a row every `width` values, no null), the wanted rows' values
//! are read from the file straight into their place in one matrix buffer, on the run's
//! threads. The parquet crate's column reader would copy every page into a buffer of its own,
//! copy the values out of it again, and leave each thread's rows in a vector of its own.
//!
//! Where each page lies and which rows it holds comes from the offset index. Any other file
//! (compressed, a dictionary, another encoding, no offset index, a null, a row of another
//! length) is `None`, for the column reader.

use super::levels;
use super::page_header::{self, PageHeader, PLAIN};
use crate::parallel::on_threads;
use crate::WorkerError;
use arrow::buffer::{Buffer, MutableBuffer};
use parquet::basic::Compression;
use parquet::file::metadata::ParquetMetaData;
use std::fs::File;
use std::os::unix::fs::FileExt;

const FLOAT: usize = std::mem::size_of::<f32>();

/// One page that holds wanted rows: where it lies, how many rows it holds, and which of them
/// go where.
#[derive(Debug)]
struct Page {
    offset: u64,
    len: usize,
    rows: usize,
    /// `(first row within the page, count, first row of the output)`.
    runs: Vec<(usize, usize, usize)>,
}

/// The values of every row, or of `rows` (ascending, distinct, in range) in that order, of
/// leaf `leaf` (a list of `width` floats) of the file `meta` describes, as one buffer of
/// floats; `None` when the file is not plain and uncompressed with an offset index, or a
/// page's levels show a null or a row of another length.
pub(super) fn read(
    file: &File,
    meta: &ParquetMetaData,
    leaf: usize,
    width: usize,
    rows: Option<&[usize]>,
    threads: usize,
) -> Result<Option<Buffer>, WorkerError> {
    let Some(pages) = plan(meta, leaf, rows) else {
        return Ok(None);
    };
    let column = meta.file_metadata().schema_descr().column(leaf);
    let (max_rep, max_def) = (column.max_rep_level(), column.max_def_level());
    if max_rep != 1 {
        return Ok(None);
    }
    let wanted: usize = pages.iter().flat_map(|p| &p.runs).map(|r| r.1).sum();
    // Rows the offset index leaves out would be left out of the matrix: the pages must hold
    // every row asked for.
    let asked = match rows {
        Some(rows) => rows.len(),
        None => usize::try_from(meta.file_metadata().num_rows()).unwrap_or(usize::MAX),
    };
    if wanted != asked {
        return Ok(None);
    }
    let Some(total) = width
        .checked_mul(FLOAT)
        .and_then(|row| wanted.checked_mul(row))
    else {
        return Ok(None);
    };
    let mut out = MutableBuffer::with_capacity(total);
    // Threads write disjoint stretches of `out`, passed as an address: a raw pointer is not
    // `Sync`, and each stretch's bounds are checked against `total` before it is written.
    let base = out.as_mut_ptr() as usize;
    let shares = ipc_parts::parallel::split(pages.len(), threads.max(1));
    let done = on_threads(shares.len(), |t| {
        let mut prefix = Vec::new();
        for page in &pages[shares[t].clone()] {
            let Some(values_at) = checked_values(file, page, width, max_def, &mut prefix)? else {
                return Ok(false);
            };
            for &(first, count, out_row) in &page.runs {
                let row = width * FLOAT;
                let (Some(len), Some(at)) = (count.checked_mul(row), out_row.checked_mul(row))
                else {
                    return Ok(false);
                };
                if at.saturating_add(len) > total || first.saturating_add(count) > page.rows {
                    return Ok(false);
                }
                let from = page.offset + (values_at + first * width * FLOAT) as u64;
                // SAFETY: `at + len` is within the buffer's capacity (checked above), no two
                // runs share output rows, and nothing reads the buffer until every thread is
                // done.
                unsafe {
                    ipc_parts::file::pread_exact(file, (base as *mut u8).add(at), len, from)
                }?;
            }
        }
        Ok(true)
    })?;
    if !done.iter().all(|&ok| ok) {
        return Ok(None);
    }
    // SAFETY: the runs' output rows cover 0..wanted exactly once (they were laid out one
    // after another), so every byte up to `total` was written; any bits are a float.
    unsafe { out.set_len(total) };
    Ok(Some(out.into()))
}

/// The pages holding wanted rows, in file order, with where each run of them goes; `None`
/// unless every column chunk of `leaf` is uncompressed, has no dictionary and has an offset
/// index.
fn plan(meta: &ParquetMetaData, leaf: usize, rows: Option<&[usize]>) -> Option<Vec<Page>> {
    let index = meta.page_index().filter(|i| i.has_offset_indexes())?;
    let (mut pages, mut group_start, mut out_row) = (Vec::new(), 0usize, 0usize);
    for (group, row_group) in meta.row_groups().iter().enumerate() {
        let chunk = row_group.columns().get(leaf)?;
        if chunk.compression() != Compression::UNCOMPRESSED
            || chunk.dictionary_page_offset().is_some()
        {
            return None;
        }
        let group_rows = usize::try_from(row_group.num_rows()).ok()?;
        let locations = index.offset_index(group, leaf)?.page_locations();
        // The pages cover the group from its first row.
        match locations.first() {
            Some(first) if first.first_row_index == 0 => {}
            None if group_rows == 0 => {}
            _ => return None,
        }
        for (i, location) in locations.iter().enumerate() {
            let first = usize::try_from(location.first_row_index).ok()?;
            let end = match locations.get(i + 1) {
                Some(next) => usize::try_from(next.first_row_index).ok()?,
                None => group_rows,
            };
            let page_rows = end.checked_sub(first)?;
            let (start, stop) = (group_start + first, group_start + end);
            let runs = match rows {
                None => vec![(0, page_rows, out_row)],
                Some(rows) => {
                    let held = &rows[rows.partition_point(|&r| r < start)..];
                    let held = &held[..held.partition_point(|&r| r < stop)];
                    runs_of(held, start, out_row)
                }
            };
            out_row = out_row.checked_add(runs.iter().map(|r| r.1).sum::<usize>())?;
            if !runs.is_empty() && page_rows > 0 {
                pages.push(Page {
                    offset: u64::try_from(location.offset).ok()?,
                    len: usize::try_from(location.compressed_page_size).ok()?,
                    rows: page_rows,
                    runs,
                });
            }
        }
        group_start = group_start.checked_add(group_rows)?;
    }
    Some(pages)
}

/// `rows` (ascending, distinct, within a page starting at row `start`) as runs of consecutive
/// rows `(first within the page, count, first output row)`, the output rows following on from
/// `out_row`.
fn runs_of(rows: &[usize], start: usize, mut out_row: usize) -> Vec<(usize, usize, usize)> {
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for &row in rows {
        let local = row - start;
        match runs.last_mut() {
            Some((first, count, _)) if *first + *count == local => *count += 1,
            _ => runs.push((local, 1, out_row)),
        }
        out_row += 1;
    }
    runs
}

/// Reads `page`'s header and levels (everything before its values) into `prefix` and checks
/// them; where its values start within the page, or `None` when it is not a plain,
/// uncompressed page of `page.rows` rows of `width` non-null values.
fn checked_values(
    file: &File,
    page: &Page,
    width: usize,
    max_def: i16,
    prefix: &mut Vec<u8>,
) -> Result<Option<usize>, WorkerError> {
    // A page's levels count is an i32 in its header: more is no page of ours.
    let values = match page.rows.checked_mul(width) {
        Some(values) if values <= i32::MAX as usize => values,
        _ => return Ok(None),
    };
    let Some(before) = page.len.checked_sub(values * FLOAT) else {
        return Ok(None);
    };
    // The header and levels of a page read from the file: no larger than the file.
    if page.offset.saturating_add(page.len as u64) > file.metadata()?.len() {
        return Ok(None);
    }
    prefix.clear();
    prefix.resize(before, 0);
    file.read_exact_at(prefix, page.offset)?;
    let Some(header) = page_header::read(prefix) else {
        return Ok(None);
    };
    let plain = header.encoding == PLAIN
        && header.num_values == values
        && header.compressed_size == header.uncompressed_size
        && header.header_len + header.compressed_size == page.len;
    if !plain {
        return Ok(None);
    }
    let levels = &prefix[header.header_len..];
    let fits = match header.v2 {
        Some(v2) => v2_levels(levels, &header, v2, values, width, max_def),
        None => v1_levels(levels, values, width, max_def),
    };
    Ok(fits.then_some(before))
}

/// A version 1 page's levels: each behind its 4-byte length, and nothing after them but the
/// values.
fn v1_levels(levels: &[u8], values: usize, width: usize, max_def: i16) -> bool {
    let Some((repetitions, rest)) = prefixed(levels) else {
        return false;
    };
    let (definitions, rest) = match max_def {
        0 => (&[][..], rest),
        _ => match prefixed(rest) {
            Some(split) => split,
            None => return false,
        },
    };
    rest.is_empty()
        && levels::rows_of_width(repetitions, values, width)
        && (max_def == 0 || levels::all_at(definitions, max_def, values))
}

/// A version 2 page's levels: lengths in the header, nulls and rows counted there too.
fn v2_levels(
    levels: &[u8],
    header: &PageHeader,
    v2: page_header::V2Levels,
    values: usize,
    width: usize,
    max_def: i16,
) -> bool {
    let (rep, def) = (v2.repetition_len, v2.definition_len);
    rep + def == levels.len()
        && v2.num_nulls == 0
        && v2.num_rows * width == header.num_values
        && levels::rows_of_width(&levels[..rep], values, width)
        && (max_def == 0 || levels::all_at(&levels[rep..], max_def, values))
}

/// A 4-byte little-endian length and the bytes it covers, then what follows.
fn prefixed(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let body = bytes.get(4..4 + len)?;
    Some((body, &bytes[4 + len..]))
}
