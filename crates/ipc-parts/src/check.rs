//! The table's invariants, checked against the files: metadata matches files, row counts add
//! up, each partition's first and last labels are its min and max, labels increase strictly
//! within and across partitions, every file has the table's schema.

use crate::error::{Result, StoreError};
use crate::file::Access;
use crate::key::{self, Key};
use crate::table::Table;

/// What a check found besides the invariants (which it returns as an error when broken).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    pub partitions: usize,
    pub rows: u64,
    /// Store files the metadata does not list (from a change that crashed before its commit,
    /// or old files a commit could not delete); `remove_unreferenced` deletes them.
    pub unreferenced: Vec<String>,
}

impl Table {
    /// Reads every partition (its index column) and checks the invariants.
    pub fn check(&self) -> Result<Health> {
        fn broken<T>(what: String) -> Result<T> {
            Err(StoreError::Corrupt(what))
        }
        let meta = &self.meta;
        if meta.partitions.is_empty() {
            return broken("no partitions".into());
        }
        let mut total = 0u64;
        let mut previous_max: Option<Key> = None;
        for (p, part) in meta.partitions.iter().enumerate() {
            let file = self.open_file(p, Access::Plain)?;
            if file.schema().fields() != self.schema.fields() {
                return broken(format!("{} has another schema than the table", part.file));
            }
            let batches: Vec<_> = file
                .read_all(Some(vec![0]))?
                .into_iter()
                .filter(|b| b.num_rows() > 0)
                .collect();
            let mut last: Option<Key> = None;
            for batch in &batches {
                let keys = key::keys(batch.column(0))?;
                key::check_increasing(keys.as_ref(), last.as_ref())
                    .or_else(|reason| broken(format!("{}: {reason}", part.file)))?;
                last = Some(keys.key(keys.len() - 1));
            }
            let first = match batches.first() {
                Some(b) => Some(key::keys(b.column(0))?.key(0)),
                None => None,
            };
            if first != part.min || last != part.max {
                return broken(format!(
                    "{}: labels run from {first:?} to {last:?}, the metadata says {:?} to {:?}",
                    part.file, part.min, part.max
                ));
            }
            if part.rows == 0 && meta.partitions.len() > 1 {
                return broken(format!(
                    "{} is empty in a table of several partitions",
                    part.file
                ));
            }
            if let (Some(before), Some(min)) = (&previous_max, &part.min) {
                if before.compare(min) != Some(std::cmp::Ordering::Less) {
                    return broken(format!(
                        "{} starts at {min}, not after the previous partition's {before}",
                        part.file
                    ));
                }
            }
            if part.max.is_some() {
                previous_max = part.max.clone();
            }
            total += part.rows;
        }
        if total != meta.rows {
            return broken(format!(
                "the partitions hold {total} rows, the metadata says {}",
                meta.rows
            ));
        }
        Ok(Health {
            partitions: meta.partitions.len(),
            rows: total,
            unreferenced: self.unreferenced_files()?,
        })
    }
}
