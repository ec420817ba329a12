//! What a plan asks of the machine, checked before anything is written: a generated source
//! must fit the free disk under `--out` and, since a write holds it whole, the memory
//! available; a dataset needs rows. `--allow-large` overrides the size checks.

use crate::datasets::{row_shape, DatasetSpec};
use crate::Error;
use std::path::Path;

/// Bytes of schema bookkeeping per column in the runner (field, name, generator, state).
const PER_COLUMN_BYTES: u64 = 256;

/// The planned source of a generated dataset: bytes on disk and in memory, about.
fn planned_bytes(spec: &DatasetSpec) -> Option<(u64, u64)> {
    let DatasetSpec::Generated {
        kind,
        rows,
        per_type,
        features,
        ..
    } = spec
    else {
        return None;
    };
    let (row, columns) = row_shape(*kind, *per_type, *features);
    let data = row.saturating_mul(*rows);
    Some((
        data,
        data.saturating_add(columns.saturating_mul(PER_COLUMN_BYTES)),
    ))
}

/// Free bytes of the file system that holds `path` (or its nearest existing ancestor).
fn free_disk(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let existing = path.ancestors().find(|p| p.exists())?;
    let name = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs writes only into the zeroed struct we own; `name` is NUL-terminated.
    unsafe {
        let mut stats: libc::statvfs = std::mem::zeroed();
        (libc::statvfs(name.as_ptr(), &mut stats) == 0)
            .then(|| stats.f_bavail.saturating_mul(stats.f_frsize))
    }
}

/// MemAvailable from /proc/meminfo.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn gib(bytes: u64) -> String {
    crate::units::bytes(bytes)
}

/// The folder a run writes in (`flag` names it: `--out`, `--resume`), made if missing and
/// written in once, before anything is measured: a file, a read-only file system or a folder
/// this user may not write in is a setup error of one line (exit 2), not the machine failing
/// halfway (exit 1).
pub fn check_writable(flag: &str, dir: &Path) -> Result<(), Error> {
    let refuse = |why: String| Error::Input(format!("{flag} {}: {why}", dir.display()));
    if dir.exists() && !dir.is_dir() {
        return Err(refuse("not a directory".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| refuse(format!("cannot create it: {e}")))?;
    // Writing is the one test that covers every reason it may fail (permissions, a read-only
    // mount, an immutable folder, root's exemptions): a folder made and removed at once.
    let probe = dir.join(format!(".formatbench-write-check-{}", std::process::id()));
    std::fs::create_dir(&probe).map_err(|e| refuse(format!("cannot write in it: {e}")))?;
    let _ = std::fs::remove_dir(&probe);
    Ok(())
}

/// Refuses, with the figures, a plan whose datasets cannot be generated here.
pub fn check(datasets: &[DatasetSpec], out: &Path, allow_large: bool) -> Result<(), Error> {
    for spec in datasets {
        if let DatasetSpec::Generated { rows: 0, .. } = spec {
            return Err(Error::Input(format!(
                "dataset {}: --rows 0 makes an empty dataset, and an empty result verifies \
                 trivially; ask for at least one row",
                spec.name()
            )));
        }
        let Some((disk, memory)) = planned_bytes(spec) else {
            continue;
        };
        if allow_large {
            continue;
        }
        if let Some(free) = free_disk(out).filter(|free| disk > *free) {
            return Err(Error::Input(format!(
                "dataset {}: its source would take about {} and the disk under {} has {} free \
                 (artifacts need more); use fewer rows or columns, or pass --allow-large",
                spec.name(),
                gib(disk),
                out.display(),
                gib(free)
            )));
        }
        if let Some(free) = available_memory().filter(|free| memory > *free) {
            return Err(Error::Input(format!(
                "dataset {}: writes hold its source in memory, about {}, and {} is available; \
                 use fewer rows or columns, or pass --allow-large",
                spec.name(),
                gib(memory),
                gib(free)
            )));
        }
    }
    Ok(())
}
