//! The table's metadata: one small, versioned JSON file, replaced atomically at every commit.

use crate::error::{at, Result, StoreError};
use crate::file::Compression;
use crate::key::{Key, KeyKind};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Write;
use std::path::Path;

pub const FORMAT: &str = "ipc-parts";
/// Bumped when a reader of an older version could misread the file.
pub const VERSION: u32 = 1;
pub const METADATA_FILE: &str = "table.json";
const METADATA_TEMP: &str = "table.json.tmp";
/// Partition files end in this; any other file in the directory is left alone.
pub const PARTITION_SUFFIX: &str = ".arrow";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableMeta {
    pub format: String,
    pub version: u32,
    /// Incremented by every commit; new partition files carry it in their names, so a file is
    /// never rewritten in place.
    pub generation: u64,
    pub index: IndexMeta,
    /// Every column, the index first, with its Arrow type as text (for people; the partition
    /// files hold the schema).
    pub columns: Vec<ColumnMeta>,
    pub rows: u64,
    /// The target size of a partition in bytes of Arrow data; `None`: one partition.
    pub partition_bytes: Option<u64>,
    /// The rows per partition the target size gave at write; appends and inserts reuse it.
    pub rows_per_partition: u64,
    pub compression: Compression,
    /// In index order; their ranges never overlap.
    pub partitions: Vec<PartitionMeta>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    pub name: String,
    pub kind: KeyKind,
    /// The index is the row number the store added (0..rows-1), which appends continue.
    pub row_number: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnMeta {
    pub name: String,
    #[serde(rename = "type")]
    pub data_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionMeta {
    pub file: String,
    pub rows: u64,
    pub bytes: u64,
    /// The first and last label; `None` only for the one partition of an empty table.
    pub min: Option<Key>,
    pub max: Option<Key>,
}

impl TableMeta {
    pub fn load(dir: &Path) -> Result<TableMeta> {
        let path = dir.join(METADATA_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::NotATable(format!(
                    "{} holds no ipc-parts table (no {METADATA_FILE})",
                    dir.display()
                )))
            }
            Err(e) => return Err(at(&path)(e)),
        };
        Self::parse(&text, &path)
    }

    /// The metadata in `text`, read from `path` (which names it in errors): a local file, or
    /// an object fetched whole.
    pub fn parse(text: &str, path: &Path) -> Result<TableMeta> {
        let meta: TableMeta = serde_json::from_str(text).map_err(|e| {
            StoreError::NotATable(format!("{} is not ipc-parts metadata: {e}", path.display()))
        })?;
        if meta.format != FORMAT || meta.version > VERSION {
            return Err(StoreError::NotATable(format!(
                "{} is {} version {}; this library reads {FORMAT} up to version {VERSION}",
                path.display(),
                meta.format,
                meta.version
            )));
        }
        Ok(meta)
    }

    /// Replaces the metadata file atomically: a temporary file renamed over the old one, so a
    /// crash leaves the old or the new file, whole. With `sync`, the temporary file is synced
    /// before the rename and the directory after it, so the change also survives a power loss.
    pub fn store(&self, dir: &Path, sync: bool) -> Result<()> {
        let temp = dir.join(METADATA_TEMP);
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| StoreError::Invalid(format!("cannot encode the metadata: {e}")))?;
        let mut file = File::create(&temp).map_err(at(&temp))?;
        file.write_all(text.as_bytes()).map_err(at(&temp))?;
        if sync {
            file.sync_all().map_err(at(&temp))?;
        }
        let path = dir.join(METADATA_FILE);
        std::fs::rename(&temp, &path).map_err(at(&path))?;
        if sync {
            sync_dir(dir)?;
        }
        Ok(())
    }

    pub fn column_names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|c| c.name.as_str())
    }
}

/// Makes the directory's entries (new names, renames) durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(at(dir))
}

/// The name of a new partition file: the commit's generation and a sequence number.
pub fn partition_file(generation: u64, sequence: usize) -> String {
    format!("part-{generation:08}-{sequence:06}{PARTITION_SUFFIX}")
}

/// Whether `name` is a file this store may have written (a partition or a metadata draft).
pub fn is_store_file(name: &str) -> bool {
    (name.starts_with("part-") && name.ends_with(PARTITION_SUFFIX)) || name == METADATA_TEMP
}
