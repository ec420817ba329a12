//! Proof of the cache state: which fraction of a file set's bytes is in the page cache, asked of
//! the kernel with mincore on a mapping that is never touched.

use std::path::{Path, PathBuf};

/// Every regular file under `path` (or `path` itself when it is a file), sorted.
pub fn files_under(path: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![path.to_path_buf()];
    while let Some(p) = pending.pop() {
        if p.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&p) {
                pending.extend(entries.flatten().map(|e| e.path()));
            }
        } else if p.is_file() {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Resident bytes of one file, and its length.
fn resident_bytes(path: &Path) -> Option<(u64, u64)> {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len == 0 {
        return Some((0, 0));
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    let pages = len.div_ceil(page) as usize;
    let mut vec = vec![0u8; pages];
    // SAFETY: a read-only shared mapping of a file we opened; it is only passed to mincore
    // (never dereferenced) and unmapped before returning.
    unsafe {
        let addr = libc::mmap(
            std::ptr::null_mut(),
            len as usize,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        );
        if addr == libc::MAP_FAILED {
            return None;
        }
        let rc = libc::mincore(addr, len as usize, vec.as_mut_ptr());
        libc::munmap(addr, len as usize);
        if rc != 0 {
            return None;
        }
    }
    let mut resident = 0u64;
    for (i, &flag) in vec.iter().enumerate() {
        if flag & 1 == 1 {
            let start = i as u64 * page;
            resident += page.min(len - start);
        }
    }
    Some((resident, len))
}

/// The byte-weighted resident fraction of `files`; `None` when it cannot be asked.
pub fn resident_fraction(files: &[PathBuf]) -> Option<f64> {
    let mut resident = 0u64;
    let mut total = 0u64;
    for file in files {
        let (r, t) = resident_bytes(file)?;
        resident += r;
        total += t;
    }
    (total > 0).then(|| resident as f64 / total as f64)
}

/// Writes every dirty page of the system back to storage (`sync`). The runner does it before
/// write samples, and a change's set-up after writing the table it starts from, so no timed
/// write is throttled by, or competes with, the writeback of data written before its timer.
pub fn write_back_everything() {
    // SAFETY: sync takes no arguments and only schedules and waits for writeback.
    unsafe { libc::sync() };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_just_written_and_read_is_resident() {
        let dir = std::env::temp_dir().join(format!("fb-residency-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let _ = std::fs::read(&path).unwrap();
        let fraction = resident_fraction(&files_under(&dir)).unwrap();
        assert!(fraction > 0.9, "{fraction}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
