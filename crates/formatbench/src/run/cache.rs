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

/// Puts the files of an artifact just written into the page cache in one canonical form:
/// written back, dropped, and read in again whole through a mapping that asks for huge pages.
/// Left as written, a file's page-cache folios are as large as its writer's write calls, and a
/// memory-mapped read pays for that: at 1M × 61 one `ipc-mmap` file as written in 512 KiB
/// calls scanned in 40 ms with 3,268 page faults per call, and 20 ms with 453 once dropped and
/// read in again. Read in by `read`s, a file's first folios are small and grow as readahead
/// ramps up, which every file pays again: a 100 MiB file then took 299 faults to map where a
/// 400 MiB one took 449, so a table split into files scanned slower than one file for the
/// page cache's sake alone. Read in through the mapping, both take one fault per 2 MiB (50 and
/// 200). The warm state then depends on the reader alone, not on the writer or on how a
/// table is split into files.
pub fn settle(files: &[PathBuf]) -> Result<(), Error> {
    for path in files {
        evict(path)?;
        read_in(path)?;
    }
    Ok(())
}

/// Reads the whole file into the page cache in the largest folios the kernel makes
/// ([`populate_huge`]), or by plain 1 MiB reads where it cannot map the file.
fn read_in(path: &PathBuf) -> Result<(), Error> {
    let file = std::fs::File::open(path).map_err(Error::at("open", path))?;
    let len = file
        .metadata()
        .map_err(Error::at("read the size of", path))?
        .len();
    if len == 0 || populate_huge(&file, len) {
        return Ok(());
    }
    read_through(file, path)
}

/// Maps the file with MADV_HUGEPAGE, whose page faults read it in 2 MiB folios from its first
/// byte (readahead skips its ramp from small folios), and faults every page in at once with
/// MADV_POPULATE_READ (Linux 5.14). False where the kernel refuses either: the caller then
/// reads the file instead.
fn populate_huge(file: &std::fs::File, len: u64) -> bool {
    let Ok(len) = usize::try_from(len) else {
        return false;
    };
    // SAFETY: the mapping is never dereferenced here; the kernel faults its pages in and it
    // is unmapped before returning.
    unsafe {
        let Some(addr) = map_read_only(file, len) else {
            return false;
        };
        // Advice only: without it the file still comes in whole, in readahead's folio sizes.
        libc::madvise(addr, len, libc::MADV_HUGEPAGE);
        let populated = libc::madvise(addr, len, libc::MADV_POPULATE_READ) == 0;
        libc::munmap(addr, len);
        populated
    }
}

/// Maps `len` bytes of `file`, private and read-only; `None` where the kernel refuses.
///
/// # Safety
/// The caller reads only within `len` and unmaps the mapping (`libc::munmap(addr, len)`).
unsafe fn map_read_only(file: &std::fs::File, len: usize) -> Option<*mut libc::c_void> {
    // SAFETY: a new mapping of a file the caller holds open; the kernel places it.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        )
    };
    (addr != libc::MAP_FAILED).then_some(addr)
}

/// Reads the whole file through the page cache in 1 MiB reads.
fn read_through(mut file: std::fs::File, path: &std::path::Path) -> Result<(), Error> {
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

    /// Page faults this thread takes to touch every page of `path` through a fresh mapping.
    fn faults_to_map(path: &PathBuf) -> i64 {
        let file = std::fs::File::open(path).unwrap();
        let len = file.metadata().unwrap().len() as usize;
        let minor_faults = || {
            // SAFETY: getrusage fills the struct we pass.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            assert_eq!(
                unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) },
                0
            );
            usage.ru_minflt
        };
        // SAFETY: a read-only mapping of a file this test owns, read within its length.
        unsafe {
            let addr = map_read_only(&file, len).unwrap();
            let before = minor_faults();
            let mut sum = 0u64;
            for offset in (0..len).step_by(4096) {
                sum += u64::from(std::ptr::read_volatile(addr.cast::<u8>().add(offset)));
            }
            let faults = minor_faults() - before;
            libc::munmap(addr, len);
            assert_eq!(sum, 0);
            faults
        }
    }

    #[test]
    fn a_settled_file_maps_in_no_more_faults_than_one_read_in() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("artifact.bin");
        let len = 16 << 20;
        std::fs::write(&path, vec![0u8; len]).unwrap();
        settle(std::slice::from_ref(&path)).unwrap();
        let settled = faults_to_map(&path);
        evict(&path).unwrap();
        read_through(std::fs::File::open(&path).unwrap(), &path).unwrap();
        let read = faults_to_map(&path);
        eprintln!("16 MiB mapped: {settled} faults settled, {read} read in by 1 MiB reads");
        // Where the kernel makes 2 MiB folios of this file, a settled file takes one or two
        // faults per folio (14 for these 8 on a quiet machine, to 235 read in); how many it
        // gets depends on the memory free and unfragmented at that moment (102 beside CI's
        // heavy build), and without huge pages the two ways read the file in alike. What holds
        // whatever the kernel's state: settling never costs more faults than reading in.
        assert!(settled <= read, "{settled} > {read}");
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
