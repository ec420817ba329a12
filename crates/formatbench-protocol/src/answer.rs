use crate::counters::OpCounters;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    Ok,
    /// The backend cannot do this natively (or cannot store this data); `reason` says why.
    Unsupported,
    /// The operation raised an error; `reason` carries it.
    Failed,
}

/// A named, timed part of a sample (`load` before a write is reported but never scored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    pub name: String,
    pub seconds: f64,
}

/// What a worker reports for one job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub protocol: u32,
    pub status: AnswerStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Seconds of the timed operation: the figure every ranking uses.
    #[serde(default)]
    pub op_s: f64,
    /// Every phase the worker timed, the operation included.
    #[serde(default)]
    pub phases: Vec<Phase>,
    /// The parts timed inside the operation ([`crate::phases`]) in its first call alone; the
    /// totals in `phases` cover every call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first_call_phases: Vec<Phase>,
    /// How many times the operation ran inside the timer (`op_s` is per call).
    #[serde(default = "one")]
    pub calls: u64,
    #[serde(default)]
    pub counters: OpCounters,
    /// Peak resident memory while the operation ran (VmHWM, reset at its start), in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// `operation` when the high-water mark was reset at the start; `process` when it could not be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_scope: Option<String>,
    /// The processes whose accounting the counters and memory figures sum: the worker and a
    /// cluster peer's cluster below it; absent for one process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accounted_processes: Option<u64>,
    /// Resident memory at the start of the operation (e.g. the loaded source before a write).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_before_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_anon_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_file_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<u64>,
    /// An opaque digest of the result, computed after the timer; equal results give equal digests
    /// for the same worker build, so the runner checks every sample against the verified one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// For `write`: bytes on disk of everything written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// Seconds of the first call alone (later calls of a repeated sample are warm in-process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_call_s: Option<f64>,
    /// Mean seconds of the calls after the first (warm: same process, data already touched);
    /// absent when the sample made one call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_call_s: Option<f64>,
    /// CPU seconds (user + system) of the first call alone, and the mean of the later calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_call_cpu_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_call_cpu_s: Option<f64>,
    /// When the first call ended, in Unix seconds, where later calls followed: the runner
    /// splits an object store's count of the sample's traffic there (first call, warm calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_call_ended_unix_s: Option<f64>,
    /// Byte-weighted fraction of the artifact's pages resident in the page cache just before
    /// the timer started (mincore), the proof of the cache state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resident_fraction: Option<f64>,
    /// Arrow in-memory bytes of the values the operation returned (for read amplification).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_bytes: Option<u64>,
    /// Effective settings (codec, encodings read back, method used for the op, versions, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, String>,
    /// The object-storage requests and bytes of the whole sample as the worker's own S3 client
    /// counted them, for a store that counts nothing for formatbench (a user's); absent where
    /// the worker cannot count them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_traffic: Option<crate::ObjectTraffic>,
    /// A cluster peer's answer to a job's `partition_digest`: the oracle program's output for
    /// each partition of the result, computed inside the engine (docs/protocol.md,
    /// "Partition digests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_digests: Option<Vec<crate::PartialDigest>>,
}

fn one() -> u64 {
    1
}

impl Answer {
    fn empty(status: AnswerStatus, reason: Option<String>) -> Self {
        Answer {
            protocol: crate::PROTOCOL_VERSION,
            status,
            reason,
            op_s: 0.0,
            phases: Vec::new(),
            first_call_phases: Vec::new(),
            calls: 1,
            counters: OpCounters::default(),
            peak_rss_bytes: None,
            peak_scope: None,
            accounted_processes: None,
            rss_before_bytes: None,
            rss_anon_bytes: None,
            rss_file_bytes: None,
            rows: None,
            columns: None,
            digest: None,
            size_bytes: None,
            first_call_s: None,
            warm_call_s: None,
            first_call_cpu_s: None,
            warm_call_cpu_s: None,
            first_call_ended_unix_s: None,
            resident_fraction: None,
            result_bytes: None,
            settings: BTreeMap::new(),
            client_traffic: None,
            partition_digests: None,
        }
    }

    pub fn ok() -> Self {
        Self::empty(AnswerStatus::Ok, None)
    }

    pub fn unsupported(reason: impl Into<String>) -> Self {
        Self::empty(AnswerStatus::Unsupported, Some(reason.into()))
    }

    pub fn failed(reason: impl Into<String>) -> Self {
        Self::empty(AnswerStatus::Failed, Some(reason.into()))
    }

    /// Copies a measurement into the answer: the op time, counters and memory.
    pub fn with_measurement(mut self, m: &crate::Measured) -> Self {
        self.op_s = m.seconds / m.calls.max(1) as f64;
        self.calls = m.calls;
        self.phases.push(Phase {
            name: "op".into(),
            seconds: m.seconds,
        });
        let phase = |(name, seconds): &(String, f64)| Phase {
            name: name.clone(),
            seconds: *seconds,
        };
        self.phases.extend(m.phases.iter().map(phase));
        self.first_call_phases = m.first_call_phases.iter().map(phase).collect();
        self.counters = m.counters;
        self.first_call_s = Some(m.first_call_s);
        self.first_call_cpu_s = Some(m.first_cpu_s);
        self.first_call_ended_unix_s = m.first_call_ended_unix_s.filter(|_| m.calls > 1);
        if m.calls > 1 {
            let later = (m.calls - 1) as f64;
            let cpu = m.counters.cpu_user_s + m.counters.cpu_sys_s;
            self.warm_call_s = Some(((m.seconds - m.first_call_s) / later).max(0.0));
            self.warm_call_cpu_s = Some(((cpu - m.first_cpu_s) / later).max(0.0));
        }
        self.peak_rss_bytes = m.after.peak_bytes;
        self.peak_scope = Some(if m.peak_reset { "operation" } else { "process" }.into());
        self.rss_before_bytes = m.before.rss_bytes;
        self.rss_anon_bytes = m.after.anon_bytes;
        self.rss_file_bytes = m.after.file_bytes;
        self
    }
}
