//! Arrow IPC files (Feather v2). `ipc` reads blocks into buffers of their own; `ipc-mmap` maps
//! the file and decodes zero-copy (buffers are 64-byte aligned at write, and alignment is required at read,
//! so nothing is copied silently). Profiles: uncompressed `default`, `lz4` and `zstd` frames.

use super::{column_indices, data_file, Backend, Context, Loaded, Request};
use crate::rows::{filter_index_range, position_range, take_positions};
use crate::WorkerError;
use arrow::array::RecordBatch;
use formatbench_protocol::{phases, Op, RangeSpec, ALL_OPS};
use ipc_parts::file::{write_with_arrow, IpcFile, ALIGNMENT};
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
/// a buffer of its own; `read_to_end` into spare capacity, never zeroed first).
fn open(ctx: &Context, path: &Path, mmap: bool) -> Result<IpcFile, WorkerError> {
    let file = match ctx.remote {
        // Over object storage: a ranged GET for the footer, each block's header and each
        // decoded block (the object's length from one HEAD).
        Some(target) => {
            let source = crate::remote::ObjectRanges::open(target, DATA_OBJECT)?;
            IpcFile::open_ranged(path, Box::new(source))?
        }
        None if mmap => IpcFile::map(path)?,
        None => IpcFile::open(path)?,
    };
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
    ) -> Result<Vec<RecordBatch>, WorkerError> {
        let file = open(ctx, path, self.mmap)?;
        let blocks: Vec<usize> = (0..file.block_rows().len()).collect();
        let decode_all = |projection: Option<Vec<usize>>| -> Result<Vec<RecordBatch>, WorkerError> {
            // A mapped read decodes every block up front, zero-copy: it hands over no batch
            // before the others, so it marks none.
            if self.mmap {
                return Ok(file.read_all(projection)?);
            }
            // Each thread reads, decompresses and decodes its own run of blocks, so every
            // byte of the file is read once.
            crate::parallel::by_groups(ctx.threads, &blocks, |group| {
                let decoder = file.decoder(projection.clone())?;
                group
                    .into_iter()
                    .map(|i| {
                        let batch = file.decode(&decoder, i)?;
                        phases::first_batch();
                        Ok(batch)
                    })
                    .collect()
            })
        };
        match request {
            Request::All => decode_all(None),
            Request::Columns(names) => decode_all(Some(column_indices(ctx.schema, names)?)),
            Request::Range(RangeSpec::Position { start, end }) => {
                let decoder = file.decoder(None)?;
                position_range(file.block_rows(), *start, *end, |i| {
                    Ok(file.decode(&decoder, i)?)
                })
            }
            Request::Range(RangeSpec::Index { column, start, end }) => {
                let index = column_indices(ctx.schema, std::slice::from_ref(column))?;
                let keys = file.decoder(Some(index))?;
                let decoder = file.decoder(None)?;
                let mut out = Vec::new();
                for i in blocks {
                    // Each block is read (over object storage: fetched) once; its keys are
                    // decoded first, the whole block only when some of them match.
                    let bytes = file.block(i)?;
                    let keyed = file.decode_block(&keys, i, &bytes)?;
                    if filter_index_range(&keyed, column, *start, *end)?.num_rows() > 0 {
                        out.push(filter_index_range(
                            &file.decode_block(&decoder, i, &bytes)?,
                            column,
                            *start,
                            *end,
                        )?);
                    }
                }
                Ok(out)
            }
            Request::Take(rows, columns) => {
                let projection = columns
                    .map(|names| column_indices(ctx.schema, names))
                    .transpose()?;
                let decoder = file.decoder(projection)?;
                Ok(
                    take_positions(file.block_rows(), rows, |i| Ok(file.decode(&decoder, i)?))?
                        .into_iter()
                        .collect(),
                )
            }
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

    fn object_storage(&self) -> Result<(), String> {
        if self.mmap {
            return Err("ipc-mmap maps local files; over object storage the ipc backend reads the same files by range".into());
        }
        Ok(())
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        // arrow-ipc's own `FileWriter` (64-byte alignment): this backend measures that library.
        let compression = super::ipc_compression(ctx.profile);
        write_with_arrow(&data_file(dir, "arrow"), ctx.schema, batches, compression)?;
        Ok(())
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        let path = data_file(dir, "arrow");
        let method = match (self.mmap, request) {
            (_, Request::Columns(_)) if ctx.remote.is_some() => {
                "ranged GETs: the footer, each block's header, then the columns' buffers \
                 (whole blocks for layouts not mapped: views, unions)"
            }
            _ if ctx.remote.is_some() => {
                "ranged GETs: the footer, each block's header, then the blocks decoded"
            }
            (true, Request::All | Request::Columns(_)) => "mmap, zero-copy decode",
            (true, _) => "mmap, zero-copy decode of the needed blocks",
            (false, Request::All | Request::Columns(_)) => "buffered reads, decode",
            (false, _) => "buffered reads of the needed blocks",
        };
        let batches = self.read_file(ctx, &path, request)?;
        Ok((Loaded::Table(batches), method))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
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
                format!("arrow-ipc {}", crate::ARROW_VERSION),
            ),
            ("metadata_version".into(), "V5".into()),
            (
                "profile_settings".into(),
                match ctx.profile {
                    "lz4" => "lz4 frame",
                    "zstd" => "zstd (library default level)",
                    _ => "uncompressed",
                }
                .into(),
            ),
        ]);
        if let Ok(file) = IpcFile::open(&data_file(dir, "arrow")) {
            out.insert("codec".into(), file.codec().to_string());
            out.insert("blocks".into(), file.block_rows().len().to_string());
        }
        out
    }
}
