//! What the OS counts of a worker over its timed operation: one record, shared by the
//! measurement that takes it and the answer that reports it.

use serde::{Deserialize, Serialize};

/// OS counters of the worker over the timed operation alone (getrusage deltas, all threads).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OpCounters {
    pub cpu_user_s: f64,
    pub cpu_sys_s: f64,
    pub minflt: u64,
    pub majflt: u64,
    pub nvcsw: u64,
    pub nivcsw: u64,
    /// Bytes this process caused to be fetched from storage (/proc/self/io `read_bytes`).
    pub read_bytes: u64,
    /// Bytes this process dirtied for writeback (/proc/self/io `write_bytes`).
    pub write_bytes: u64,
    /// Bytes through read-family syscalls, page-cache hits included (`rchar`; mmap excluded).
    pub rchar: u64,
    pub wchar: u64,
}

impl OpCounters {
    /// The counters of two timed stretches together.
    pub fn plus(&self, other: &OpCounters) -> OpCounters {
        OpCounters {
            cpu_user_s: self.cpu_user_s + other.cpu_user_s,
            cpu_sys_s: self.cpu_sys_s + other.cpu_sys_s,
            minflt: self.minflt + other.minflt,
            majflt: self.majflt + other.majflt,
            nvcsw: self.nvcsw + other.nvcsw,
            nivcsw: self.nivcsw + other.nivcsw,
            read_bytes: self.read_bytes + other.read_bytes,
            write_bytes: self.write_bytes + other.write_bytes,
            rchar: self.rchar + other.rchar,
            wchar: self.wchar + other.wchar,
        }
    }
}
