//! What identifies a run's measurements: the schedule's hash, the worker build, the clock.

use crate::results::ScheduleSlot;
use crate::Error;
use std::time::Instant;

pub fn schedule_hash(slots: &[ScheduleSlot]) -> Result<String, Error> {
    let bytes = serde_json::to_vec(slots).map_err(Error::encode("the schedule"))?;
    Ok(format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)))
}

/// The smallest non-zero step of the monotonic clock seen in a tight loop.
pub fn clock_resolution() -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..10_000 {
        let a = Instant::now();
        let mut b = Instant::now();
        while b == a {
            b = Instant::now();
        }
        best = best.min((b - a).as_secs_f64());
    }
    best
}

/// A hash of the binary that runs the workers, so samples of different builds never mix.
pub fn worker_build() -> Result<String, Error> {
    use std::io::Read;
    let exe = std::env::current_exe()?;
    let cannot = |e: std::io::Error| Error::at("read", &exe)(e);
    // Streamed: a debug build is hundreds of megabytes, more than the runner needs otherwise.
    let mut file = std::fs::File::open(&exe).map_err(cannot)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut chunk).map_err(cannot)?;
        if n == 0 {
            break;
        }
        hasher.update(&chunk[..n]);
    }
    Ok(format!("xxh3:{:016x}", hasher.digest()))
}
