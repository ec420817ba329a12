//! ipc-parts: a range-partitioned Arrow IPC table store.
//!
//! A table is a directory of Arrow IPC files (partitions), each holding a run of rows in the
//! order of a sorted, unique index column, plus `table.json`, which lists the partitions with
//! their row counts and first and last labels. Reads open only the partitions that can hold
//! the rows asked for and decode only the columns asked for, zero-copy from a memory map by
//! default. Every change writes new partition files (never rewriting one in place), syncs
//! them, then replaces `table.json` atomically, so a crash leaves the old table or the new
//! one, never a mix. The semantics follow FeatherStore's (inclusive `before`/`after`/
//! `between`, label lists in request order, like-patterns for columns, its sizing rule).
//!
//! ```no_run
//! # fn main() -> Result<(), ipc_parts::StoreError> {
//! # let (dir, batches): (&std::path::Path, Vec<arrow::array::RecordBatch>) = todo!();
//! use ipc_parts::{Cols, Key, ReadOptions, Rows, Table, WriteOptions};
//! let options = WriteOptions { index: Some("index".into()), ..Default::default() };
//! let pending = Table::create(dir, batches[0].schema(), &batches, &options)?; // files closed
//! let table = pending.commit()?; // synced, metadata renamed into place
//! let rows = Rows::Between(Key::Int(100), Key::Int(199));
//! let selection = table.read(&rows, &Cols::All, &ReadOptions::default())?;
//! # Ok(()) }
//! ```

mod check;
mod error;
pub mod file;
pub mod key;
pub mod like;
pub mod meta;
mod mutate;
pub mod parallel;
mod read;
mod table;
mod write;

pub use check::Health;
pub use error::{Result, StoreError};
pub use file::Access;
pub use file::{advise_random, Compression, IpcFile};
pub use key::{Key, KeyKind};
pub use meta::{PartitionMeta, TableMeta};
pub use read::{Cols, ReadOptions, Rows, Selection};
pub use table::{RemoteFiles, Table};
pub use write::{Footprint, Pending, WriteOptions, DEFAULT_PARTITION_BYTES, ROW_NUMBER_INDEX};
