//! Arrow IPC files (Feather v2). `ipc` reads blocks into buffers of their own; `ipc-mmap` maps
//! the file and decodes zero-copy (buffers are 64-byte aligned at write, and alignment is required at read,
//! so nothing is copied silently). Profiles: uncompressed `default`, `lz4` and `zstd` frames.

use super::{column_indices, data_file, Backend, Context, Loaded, Request};
use crate::rows::{filter_index_range, position_range, take_positions};
use crate::WorkerError;
use arrow::array::RecordBatch;
use formatbench_protocol::{phases, Op, RangeSpec, ALL_OPS};
use ipc_parts::file::{write_file_threaded, IpcFile, ALIGNMENT, ZSTD_LEVEL};
use std::collections::BTreeMap;
use std::path::Path;

pub struct Ipc {
    pub mmap: bool,
}

/// The artifact's one file, as an object below the artifact's key.
const DATA_OBJECT: &str = "data.arrow";

/// Reads skip arrow-rs's per-array validation (UTF-8 and offset checks over every string
/// byte), as pyarrow's IPC reader does. Safe because every artifact read here was written in
/// this run by this backend's writer from a validated source, and every cell's result is
/// still compared value by value with the source before its timings count.
const TRUSTED_ARTIFACTS: bool = true;

/// The file, memory-mapped (decoded zero-copy) or opened for plain reads (each block read into
/// a buffer of its own; `read_to_end` into spare capacity, never zeroed first). A `selective`
/// read (range, take, project) reads without the kernel's readahead, so a cold read fetches
/// only the blocks, buffers or (mapped) pages it uses.
fn open(ctx: &Context, path: &Path, mmap: bool, selective: bool) -> Result<IpcFile, WorkerError> {
    let file = match ctx.remote {
        // Over object storage: a ranged GET for the footer, each block's header and each
        // decoded block (the object's length from one HEAD).
        Some(target) => {
            let source = crate::remote::ObjectRanges::open(target, DATA_OBJECT)?;
            IpcFile::open_ranged(path, Box::new(source))?
        }
        None if mmap => IpcFile::map_for(path, selective)?,
        None => IpcFile::open_for(path, selective)?,
    };
    // A compressed block's buffers decompress on the run's threads.
    let file = file.with_threads(ctx.threads);
    // SAFETY: see `TRUSTED_ARTIFACTS`; the file is this worker's own output.
    Ok(if TRUSTED_ARTIFACTS {
        unsafe { file.trusted() }
    } else {
        file
    })
}

impl Ipc {
    fn read_file(
        &self,
        ctx: &Context,
        path: &Path,
        request: Request,
    ) -> Result<(Vec<RecordBatch>, Pruned), WorkerError> {
        let selective = !matches!(request, Request::All);
        let file = open(ctx, path, self.mmap, selective)?;
        let blocks: Vec<usize> = (0..file.block_rows().len()).collect();
        let decode_all =
            |projection: Option<Vec<usize>>| -> Result<(Vec<RecordBatch>, Pruned), WorkerError> {
                // A mapped read decodes every block up front, zero-copy: it hands over no batch
                // before the others, so it marks none.
                if self.mmap {
                    return Ok((file.read_all(projection)?, Pruned::None));
                }
                // A fixed-size list alone (the array layout's matrix) is read straight into one
                // array: its blocks' values are the matrix already.
                if let Some([column]) = projection.as_deref() {
                    if let Some(batch) = file.read_fixed_list(*column)? {
                        phases::first_batch();
                        return Ok((vec![batch], Pruned::ListValues));
                    }
                }
                // Each thread reads and decodes its own run of blocks, so every byte of the
                // file is read once; compressed blocks go one at a time, each decompressed on
                // every thread (blocks of unequal size would leave a thread idle).
                // Over object storage blocks are fetched concurrently as before.
                let by_blocks = match (file.codec(), ctx.remote) {
                    ("none", _) | (_, Some(_)) => ctx.threads,
                    _ => 1,
                };
                let batches = crate::parallel::by_groups(by_blocks, &blocks, |group| {
                    let decoder = file.decoder(projection.clone())?;
                    group
                        .into_iter()
                        .map(|i| {
                            let batch = file.decode(&decoder, i)?;
                            phases::first_batch();
                            Ok(batch)
                        })
                        .collect()
                })?;
                Ok((batches, Pruned::None))
            };
        let blocks_left = |decoded: usize| match decoded < blocks.len() {
            true => Pruned::Some,
            false => Pruned::None,
        };
        match request {
            Request::All => decode_all(None),
            Request::Columns(names) => decode_all(Some(column_indices(ctx.schema, names)?)),
            Request::Range(RangeSpec::Position { start, end }) => {
                let decoder = file.decoder(None)?;
                let mut decoded = 0;
                let batches = position_range(file.block_rows(), *start, *end, |i| {
                    decoded += 1;
                    Ok(file.decode(&decoder, i)?)
                })?;
                Ok((batches, blocks_left(decoded)))
            }
            Request::Range(RangeSpec::Index { column, start, end }) => {
                let index = column_indices(ctx.schema, std::slice::from_ref(column))?;
                let keys = file.decoder(Some(index))?;
                let decoder = file.decoder(None)?;
                let mut out = Vec::new();
                for &i in &blocks {
                    // Each block's index column is read first (only its buffers, unless the
                    // file is mapped), the whole block only when some of its keys match.
                    let keyed = file.decode(&keys, i)?;
                    if filter_index_range(&keyed, column, *start, *end)?.num_rows() > 0 {
                        out.push(filter_index_range(
                            &file.decode(&decoder, i)?,
                            column,
                            *start,
                            *end,
                        )?);
                    }
                }
                let decoded = out.len();
                Ok((out, blocks_left(decoded)))
            }
            Request::Take(rows, columns) => {
                let projection = columns
                    .map(|names| column_indices(ctx.schema, names))
                    .transpose()?;
                // A lone fixed-size list (the array layout's random rows): each row's values
                // read straight into its place, as from a `.npy`.
                if let (Some([column]), false) = (projection.as_deref(), self.mmap) {
                    if let Some(batch) = file.read_fixed_list_rows(*column, Some(rows))? {
                        phases::first_batch();
                        return Ok((vec![batch], Pruned::ListRows));
                    }
                }
                let decoder = file.decoder(projection)?;
                let taken =
                    take_positions(file.block_rows(), rows, |i| Ok(file.decode(&decoder, i)?))?;
                Ok((taken.into_iter().collect(), Pruned::None))
            }
        }
    }
}

/// Whether a range left whole blocks unread (said in its method only when it did), or a lone
/// fixed-size list (all of it, or picked rows) was read straight into one array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pruned {
    Some,
    None,
    ListValues,
    ListRows,
}

/// How a read was done, as its answer's `method` says it.
fn method(mmap: bool, remote: bool, request: Request, pruned: Pruned) -> &'static str {
    match pruned {
        Pruned::ListValues => {
            return "one read of each block's list values into a single array (no decode, no concatenation)";
        }
        Pruned::ListRows => {
            return "one positioned read of each row's list values, straight into a single array (no decode)";
        }
        Pruned::Some | Pruned::None => {}
    }
    let pruned = pruned == Pruned::Some;
    match (mmap, request) {
        (_, Request::Columns(_)) if remote => {
            "ranged GETs: the footer, each block's header, then the columns' buffers \
             (whole blocks for layouts not mapped: views, unions)"
        }
        (_, Request::Range(RangeSpec::Index { .. })) if remote && pruned => {
            "ranged GETs: the footer, each block's header and index column; blocks without \
             matching keys pruned"
        }
        (_, Request::Range(RangeSpec::Index { .. })) if remote => {
            "ranged GETs: the footer, each block's header and index column, then every block"
        }
        (_, Request::Range(RangeSpec::Position { .. })) if remote && pruned => {
            "ranged GETs: the footer, each block's header, then the blocks holding the range \
             (blocks outside it pruned)"
        }
        _ if remote => "ranged GETs: the footer, each block's header, then the blocks decoded",
        (true, Request::All | Request::Columns(_)) => "mmap, zero-copy decode",
        (true, Request::Range(RangeSpec::Position { .. })) if pruned => {
            "mmap, zero-copy decode; blocks outside the range pruned"
        }
        (true, Request::Range(RangeSpec::Index { .. })) if pruned => {
            "mmap, zero-copy decode; each block's index column, blocks without matching keys pruned"
        }
        (true, Request::Range(_)) => "mmap, zero-copy decode of every block",
        (true, Request::Take(..)) => {
            "mmap, zero-copy decode of the blocks holding the rows; only the pages the rows lie on are touched"
        }
        (false, Request::All) => "buffered reads, decode",
        (false, Request::Columns(_)) => "buffered reads of the columns' buffers, decode",
        (false, Request::Range(RangeSpec::Position { .. })) if pruned => {
            "buffered reads; blocks outside the range pruned"
        }
        (false, Request::Range(RangeSpec::Index { .. })) if pruned => {
            "buffered reads of each block's index column; blocks without matching keys pruned"
        }
        (false, Request::Range(RangeSpec::Index { .. })) => {
            "buffered reads of each block's index column, then of every block"
        }
        (false, Request::Range(_)) => "buffered reads of every block (the range spans them all)",
        (false, Request::Take(..)) => {
            "buffered reads of the blocks holding the rows (whole blocks)"
        }
    }
}

impl Backend for Ipc {
    type Error = WorkerError;

    fn name(&self) -> &'static str {
        if self.mmap {
            "ipc-mmap"
        } else {
            "ipc"
        }
    }
    fn version(&self) -> String {
        crate::ARROW_VERSION.into()
    }
    fn about(&self) -> &'static str {
        if self.mmap {
            "Arrow IPC file (Feather v2), memory-mapped and decoded zero-copy (uncompressed files)"
        } else {
            "Arrow IPC file (Feather v2) via arrow-ipc with buffered reads (uncompressed, lz4, zstd)"
        }
    }
    fn array_form(&self) -> Option<crate::layout::ArrayForm> {
        Some(crate::layout::ArrayForm::FixedList)
    }
    fn profiles(&self) -> &'static [&'static str] {
        if self.mmap {
            &["default"]
        } else {
            &["default", "lz4", "zstd"]
        }
    }
    fn ops(&self) -> &'static [Op] {
        if self.mmap {
            // Writing is the `ipc` backend's; this one differs only in how it reads.
            &[Op::Read, Op::Scan, Op::Project, Op::Range, Op::Take]
        } else {
            &ALL_OPS
        }
    }

    fn given_file(&self) -> Option<formatbench_protocol::GivenFile> {
        super::given_file("arrow-ipc", "arrow")
    }

    fn object_storage(&self) -> Result<(), String> {
        if self.mmap {
            return Err("ipc-mmap maps local files; over object storage the ipc backend reads the same files by range".into());
        }
        Ok(())
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        // The gathered writer (ipc-parts): the arrays' buffers handed to the kernel as they
        // are, or compressed on the run's threads (as Arrow C++ compresses them); arrow-ipc's
        // `FileWriter` for the types it does not cover.
        let compression = super::ipc_compression(ctx.profile);
        write_file_threaded(
            &data_file(dir, "arrow"),
            ctx.schema,
            batches,
            compression,
            ctx.threads,
        )?;
        Ok(())
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        let path = data_file(dir, "arrow");
        let (batches, pruned) = self.read_file(ctx, &path, request)?;
        let how = method(self.mmap, ctx.remote.is_some(), request, pruned);
        Ok((Loaded::Table(batches), how))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        let zstd = format!("zstd level {ZSTD_LEVEL} (Arrow C++'s default)");
        let mut out = BTreeMap::from([
            ("alignment".into(), ALIGNMENT.to_string()),
            (
                "validation".into(),
                if TRUSTED_ARTIFACTS {
                    "skipped (own artifacts; results are verified against the source)"
                } else {
                    "full"
                }
                .into(),
            ),
            (
                "library".into(),
                format!(
                    "ipc-parts' gathered writer (this repository); arrow-ipc {} decodes, \
                     compressed blocks decompressed first by ipc-parts on the run's threads",
                    crate::ARROW_VERSION
                ),
            ),
            ("metadata_version".into(), "V5".into()),
            (
                "selective_reads".into(),
                if self.mmap {
                    "range, take, project: no readaround on faults (madvise RANDOM)"
                } else {
                    "range, take, project: no readahead (posix_fadvise RANDOM); projections read only their columns' buffers"
                }
                .into(),
            ),
            (
                "profile_settings".into(),
                match ctx.profile {
                    "lz4" => "lz4 frame, buffers compressed on the run's threads".into(),
                    "zstd" => format!("{zstd}, buffers compressed on the run's threads"),
                    _ => "uncompressed".into(),
                },
            ),
        ]);
        if let Ok(file) = IpcFile::open(&data_file(dir, "arrow")) {
            out.insert("codec".into(), file.codec().to_string());
            out.insert("blocks".into(), file.block_rows().len().to_string());
        }
        out
    }
}
