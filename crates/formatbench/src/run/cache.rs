//! Bringing an artifact into its cache state (`crate::plan::CacheState`). Warm: every file of
//! the artifact is read just before the sample, unless all of it is resident already (an
//! artifact is read in whole once written: [`settle`]). Cold: each file is synced, then its
//! pages are dropped with posix_fadvise(DONTNEED), which needs no root. The worker proves the
//! state with mincore before its timer starts.

use crate::plan::CacheState;
use crate::Error;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

/// Brings `files` into the state, just before a sample. A warm artifact not wholly resident
/// is dropped and read in again whole, so none is left partly in the page cache as a cold
/// or selective reader brought it in.
pub fn prepare(state: CacheState, files: &[PathBuf]) -> Result<(), Error> {
    // Reading what mincore already shows fully resident would change nothing.
    if state == CacheState::Warm && formatbench_protocol::resident_fraction(files) == Some(1.0) {
        return Ok(());
    }
    for path in files {
        evict(path)?;
        if state == CacheState::Warm {
            read_in(path)?;
        }
    }
    Ok(())
}

/// Puts the files of an artifact just written into the page cache as any file read from
/// storage enters it: written back, dropped, and read in again whole. Left as written, a
/// file's page-cache folios are as large as its writer's write calls, and a memory-mapped
/// read pays for that: at 1M × 61 one `ipc-mmap` file as written in 512 KiB calls scanned in
/// 40 ms with 3,268 page faults per call, and 20 ms with 453 once dropped and read in
/// again. The warm state then depends on the reader alone, not on which writer wrote
/// the bytes.
pub fn settle(files: &[PathBuf]) -> Result<(), Error> {
    for path in files {
        evict(path)?;
        read_in(path)?;
    }
    Ok(())
}

/// Reads the whole file through the page cache in 1 MiB reads (the kernel's readahead sizes
/// the folios, the same for every file).
fn read_in(path: &PathBuf) -> Result<(), Error> {
    let mut file = std::fs::File::open(path).map_err(Error::at("open", path))?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::at("read", path)(e)),
        }
    }
}

/// Writes the file's dirty pages back (they cannot be dropped) and drops its pages with
/// posix_fadvise(DONTNEED), which needs no root.
fn evict(path: &PathBuf) -> Result<(), Error> {
    let file = std::fs::File::open(path).map_err(Error::at("open", path))?;
    file.sync_all()?;
    // SAFETY: posix_fadvise only advises the kernel about an fd we own.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 {
        let source = std::io::Error::from_raw_os_error(rc);
        return Err(Error::at("evict the pages of", path)(source));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use formatbench_protocol::resident_fraction;

    /// Drops the second half of `path`'s pages.
    fn drop_second_half(path: &PathBuf, len: i64) {
        let file = std::fs::File::open(path).unwrap();
        // SAFETY: advice about an fd this test owns.
        let rc = unsafe {
            libc::posix_fadvise(
                file.as_raw_fd(),
                len / 2,
                len / 2,
                libc::POSIX_FADV_DONTNEED,
            )
        };
        assert_eq!(rc, 0);
    }

    #[test]
    fn settled_and_warm_artifacts_are_wholly_resident_and_cold_ones_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("artifact.bin");
        let len = 4 << 20;
        std::fs::write(&path, vec![7u8; len as usize]).unwrap();
        let files = vec![path.clone()];
        settle(&files).unwrap();
        assert_eq!(resident_fraction(&files), Some(1.0));
        // A reader brought in part of it: warm reads all of it in again.
        drop_second_half(&path, len);
        let part = resident_fraction(&files).unwrap();
        if part < 1.0 {
            prepare(CacheState::Warm, &files).unwrap();
            assert_eq!(resident_fraction(&files), Some(1.0));
            prepare(CacheState::Cold, &files).unwrap();
            assert!(resident_fraction(&files).unwrap() < 1.0);
        } else {
            // A file system that ignores the advice (tmpfs) keeps every page: nothing to test.
            eprintln!("skipped: posix_fadvise(DONTNEED) dropped nothing here");
        }
    }
}
