//! Cache states a read runs under, as the plan names them: warm (the files just read) or cold
//! (their pages evicted). `crate::run` brings files into a state; this says what each is,
//! what a sample's residency must show, and where cold is impossible.

use crate::results::CacheChoice;
use crate::Error;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheState {
    Warm,
    Cold,
}

impl CacheState {
    pub fn name(self) -> &'static str {
        match self {
            CacheState::Warm => "warm",
            CacheState::Cold => "cold",
        }
    }

    /// Whether a sample's resident fraction contradicts the state it was prepared for.
    pub fn missed(self, resident_fraction: f64) -> bool {
        match self {
            CacheState::Warm => resident_fraction < WARM_MIN_RESIDENT,
            CacheState::Cold => resident_fraction > COLD_MAX_RESIDENT,
        }
    }
}

/// A cold sample with more than this fraction resident, or a warm one with less than the other,
/// is flagged.
pub const COLD_MAX_RESIDENT: f64 = 0.05;
pub const WARM_MIN_RESIDENT: f64 = 0.95;

/// The states `--cache warm|cold|both` runs reads in.
pub fn cache_states(choice: CacheChoice) -> Vec<CacheState> {
    match choice {
        CacheChoice::Warm => vec![CacheState::Warm],
        CacheChoice::Cold => vec![CacheState::Cold],
        CacheChoice::Both => vec![CacheState::Warm, CacheState::Cold],
    }
}

const TMPFS_MAGIC: i64 = 0x0102_1994;
const RAMFS_MAGIC: i64 = 0x8584_58f6;

/// Refuses a file system whose pages cannot be evicted (memory-backed: tmpfs, ramfs).
pub fn check_cold_possible(dir: &Path) -> Result<(), Error> {
    let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::Input(format!("bad path {}", dir.display())))?;
    // SAFETY: statfs writes into the zeroed struct we own; the path is NUL-terminated.
    let kind = unsafe {
        let mut stat: libc::statfs = std::mem::zeroed();
        if libc::statfs(path.as_ptr(), &mut stat) != 0 {
            return Err(Error::at("statfs", dir)(std::io::Error::last_os_error()));
        }
        stat.f_type as i64
    };
    if kind == TMPFS_MAGIC || kind == RAMFS_MAGIC {
        return Err(Error::Input(format!(
            "--cache cold: {} is on a memory-backed file system (tmpfs), whose pages cannot be \
             evicted; use --out on a disk",
            dir.display()
        )));
    }
    Ok(())
}
