//! An open table: its metadata, its schema, and access to its partitions.

use crate::error::{at, Result, StoreError};
use crate::file::Access;
use crate::file::{FooterRead, IpcFile, RangeSource};
use crate::key::{self, Key};
use crate::meta::{is_store_file, PartitionMeta, TableMeta};
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone)]
pub struct Table {
    pub(crate) dir: PathBuf,
    pub(crate) meta: TableMeta,
    pub(crate) schema: SchemaRef,
    pub(crate) trusted: bool,
    /// Where the files are read from when not from `dir` (a table in object storage).
    pub(crate) remote: Option<Remote>,
}

/// A table's files somewhere other than a local directory (objects in a bucket): the metadata
/// fetched whole, each partition read by ranges (its footer, block headers and the blocks a
/// read decodes), so the partitions a read prunes are never fetched.
pub trait RemoteFiles: Send + Sync {
    /// The whole file `name` (the metadata, `table.json`).
    fn fetch(&self, name: &str) -> std::io::Result<Vec<u8>>;
    /// The file `name` (a partition), to be read by ranges.
    fn open(&self, name: &str) -> std::io::Result<Box<dyn RangeSource>>;
}

/// A table's [`RemoteFiles`], shared by its clones, and the first partition as opening the
/// table left it: its footer fetched for the schema, kept for the first read that needs that
/// partition, so that read fetches neither the footer again nor, before it, any block header.
#[derive(Clone)]
pub(crate) struct Remote {
    files: Arc<dyn RemoteFiles>,
    first: Arc<Mutex<Option<FooterRead>>>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RemoteFiles")
    }
}

impl Table {
    /// Opens the table in `dir` as its last commit left it.
    pub fn open(dir: &Path) -> Result<Table> {
        Self::open_with(dir, TableMeta::load(dir)?, None)
    }

    /// Opens a table whose files `files` reads (`name` names it in errors). It is for reading:
    /// changes write local files, and fail on it.
    pub fn open_remote(name: &Path, files: Arc<dyn RemoteFiles>) -> Result<Table> {
        let path = name.join(crate::meta::METADATA_FILE);
        let bytes = files.fetch(crate::meta::METADATA_FILE).map_err(at(&path))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| StoreError::NotATable(format!("{} is not UTF-8", path.display())))?;
        let meta = TableMeta::parse(&text, &path)?;
        Self::open_with(name, meta, Some(files))
    }

    fn open_with(
        dir: &Path,
        meta: TableMeta,
        files: Option<Arc<dyn RemoteFiles>>,
    ) -> Result<Table> {
        let first = meta
            .partitions
            .first()
            .ok_or_else(|| StoreError::Corrupt("the metadata lists no partition".into()))?;
        let path = dir.join(&first.file);
        // The footer alone holds the schema: block headers are read when a read needs them.
        let (schema, remote) = match files {
            Some(files) => {
                let source = files.open(&first.file).map_err(at(&path))?;
                let footer = FooterRead::ranged(&path, source)?;
                let schema = footer.schema().clone();
                let remote = Remote {
                    files,
                    first: Arc::new(Mutex::new(Some(footer))),
                };
                (schema, Some(remote))
            }
            None => (FooterRead::plain(&path)?.schema().clone(), None),
        };
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        if !names.iter().copied().eq(meta.column_names()) {
            return Err(StoreError::Corrupt(format!(
                "the metadata lists columns {:?}, the partition files hold {names:?}",
                meta.column_names().collect::<Vec<_>>()
            )));
        }
        Ok(Table {
            dir: dir.to_path_buf(),
            meta,
            schema,
            trusted: false,
            remote,
        })
    }

    /// Skips arrow's validation of decoded arrays (UTF-8, offsets) on reads.
    ///
    /// # Safety
    /// Only for tables whose files were written by this library and not altered since: a
    /// corrupt file could then produce arrays that read out of bounds.
    pub unsafe fn trusted(mut self) -> Self {
        self.trusted = true;
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn meta(&self) -> &TableMeta {
        &self.meta
    }
    /// Every column, the index first.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
    pub fn num_rows(&self) -> u64 {
        self.meta.rows
    }
    pub fn partitions(&self) -> &[PartitionMeta] {
        &self.meta.partitions
    }
    pub fn index_name(&self) -> &str {
        &self.meta.index.name
    }

    pub(crate) fn open_file(&self, partition: usize, access: Access) -> Result<IpcFile> {
        let meta = self.meta.partitions.get(partition).ok_or_else(|| {
            StoreError::Corrupt(format!("no partition {partition} in the metadata"))
        })?;
        let path = self.dir.join(&meta.file);
        let file = match (&self.remote, access) {
            (Some(remote), _) => {
                let opened = match partition {
                    0 => remote
                        .first
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take(),
                    _ => None,
                };
                match opened {
                    Some(footer) => footer.open()?,
                    None => IpcFile::open_ranged(
                        &path,
                        remote.files.open(&meta.file).map_err(at(&path))?,
                    )?,
                }
            }
            (None, Access::Mmap) => IpcFile::map(&path)?,
            (None, Access::Plain) => IpcFile::open(&path)?,
        };
        if file.num_rows() != meta.rows {
            return Err(StoreError::Corrupt(format!(
                "{} holds {} rows, the metadata says {}",
                meta.file,
                file.num_rows(),
                meta.rows
            )));
        }
        // SAFETY: only for tables the caller declared trusted (`Table::trusted`).
        Ok(if self.trusted {
            unsafe { file.trusted() }
        } else {
            file
        })
    }

    /// Every record batch of a partition, with the given file columns (all when `None`).
    pub(crate) fn load(
        &self,
        partition: usize,
        projection: Option<Vec<usize>>,
        access: Access,
    ) -> Result<Vec<RecordBatch>> {
        self.open_file(partition, access)?.read_all(projection)
    }

    /// The partition whose range can hold `key`: the first whose max is not below it, if its
    /// min is not above it.
    pub(crate) fn partition_holding(&self, key: &Key) -> Option<usize> {
        let parts = &self.meta.partitions;
        let p = key::partition_point(parts.len(), |i| below(&parts[i].max, key));
        let part = parts.get(p)?;
        match &part.min {
            Some(min) if min.compare(key) != Some(Ordering::Greater) => Some(p),
            _ => None,
        }
    }

    /// The number of partitions whose first label is at most `key`.
    pub(crate) fn partitions_starting_by(&self, key: &Key) -> usize {
        let parts = &self.meta.partitions;
        key::partition_point(parts.len(), |i| {
            parts[i]
                .min
                .as_ref()
                .is_some_and(|min| min.compare(key) != Some(Ordering::Greater))
        })
    }

    /// The first partition whose last label is at least `key`.
    pub(crate) fn first_partition_reaching(&self, key: &Key) -> usize {
        let parts = &self.meta.partitions;
        key::partition_point(parts.len(), |i| below(&parts[i].max, key))
    }

    /// Removes files this store wrote that the metadata does not list: partitions of a commit
    /// that never happened, or old ones a finished commit could not delete. Returns their
    /// names. Run by every change before it writes; safe while no other writer is at work.
    pub fn remove_unreferenced(&self) -> Result<Vec<String>> {
        // The listing already leaves out every file the metadata names.
        let unreferenced = self.unreferenced_files()?;
        for name in &unreferenced {
            let path = self.dir.join(name);
            std::fs::remove_file(&path).map_err(at(&path))?;
        }
        Ok(unreferenced)
    }

    pub(crate) fn unreferenced_files(&self) -> Result<Vec<String>> {
        let listed: BTreeSet<&str> = self
            .meta
            .partitions
            .iter()
            .map(|p| p.file.as_str())
            .collect();
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(at(&self.dir))? {
            let entry = entry.map_err(at(&self.dir))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_store_file(&name) && !listed.contains(name.as_str()) {
                out.push(name);
            }
        }
        out.sort();
        Ok(out)
    }
}

/// Whether a partition's last label is below `key` (an empty partition's is).
fn below(max: &Option<Key>, key: &Key) -> bool {
    match max {
        Some(max) => max.compare(key) == Some(Ordering::Less),
        None => true,
    }
}
