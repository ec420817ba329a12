//! Bringing an artifact into its cache state (`crate::plan::CacheState`). Warm: every file of the artifact is read just before the sample. Cold: each file
//! is synced, then its pages are dropped with posix_fadvise(DONTNEED), which needs no root. The
//! worker proves the state with mincore before its timer starts.

use crate::plan::CacheState;
use crate::Error;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

/// Brings `files` into the state, just before a sample.
pub fn prepare(state: CacheState, files: &[PathBuf]) -> Result<(), Error> {
    // Reading what mincore already shows fully resident would change nothing.
    if state == CacheState::Warm && formatbench_protocol::resident_fraction(files) == Some(1.0) {
        return Ok(());
    }
    for path in files {
        let mut file = std::fs::File::open(path).map_err(Error::at("open", path))?;
        match state {
            CacheState::Warm => {
                let mut buf = vec![0u8; 1 << 20];
                while file.read(&mut buf)? > 0 {}
            }
            CacheState::Cold => {
                // Dirty pages cannot be dropped: write them back first.
                file.sync_all()?;
                // SAFETY: posix_fadvise only advises the kernel about an fd we own.
                let rc = unsafe {
                    libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED)
                };
                if rc != 0 {
                    let source = std::io::Error::from_raw_os_error(rc);
                    return Err(Error::at("evict the pages of", path)(source));
                }
            }
        }
    }
    Ok(())
}
