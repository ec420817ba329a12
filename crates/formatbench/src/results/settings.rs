//! The settings a run was started with, as its environment block records them. Typed here and
//! parsed once, at the command line (clap) or from a suite file; written to results.jsonl as
//! the object of strings docs/results.md documents, so results files of earlier versions read
//! back and reports of them render as before.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which call of a sample ranks (`--call`). A sample calls its operation at least twice in one
/// worker process: the first call is a script's view (page faults, pool start-up and lazy
/// initialisation included), the later ones a service's (same process, warm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum CallMode {
    /// The first call in a fresh process.
    First,
    /// The mean of the calls after the first, in the same process.
    #[default]
    Warm,
}

impl CallMode {
    pub fn name(self) -> &'static str {
        match self {
            CallMode::First => "first",
            CallMode::Warm => "warm",
        }
    }

    /// What the reports say the ranked times are.
    pub fn describe(self) -> &'static str {
        match self {
            CallMode::First => {
                "first calls: each sample's first call in a fresh worker process (a script's view)"
            }
            CallMode::Warm => {
                "warm calls: each sample's calls after the first, in the same worker process (a \
                 service's view); cold-cache reads and one-call samples count their first call"
            }
        }
    }
}

/// What the recommendation optimises for (`--prefer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Prefer {
    Read,
    Write,
    Size,
    #[default]
    Balanced,
}

impl Prefer {
    pub fn name(self) -> &'static str {
        match self {
            Prefer::Read => "read",
            Prefer::Write => "write",
            Prefer::Size => "size",
            Prefer::Balanced => "balanced",
        }
    }
}

/// The page-cache states reads run under (`--cache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum CacheChoice {
    /// The files just read.
    #[default]
    Warm,
    /// Their pages evicted before each sample.
    Cold,
    /// Every read cell in both states.
    Both,
}

impl CacheChoice {
    pub fn name(self) -> &'static str {
        match self {
            CacheChoice::Warm => "warm",
            CacheChoice::Cold => "cold",
            CacheChoice::Both => "both",
        }
    }
}

/// A recorded value of one of the enums above, read as the command line reads it (case
/// aside); `None` for anything else.
pub fn recorded<T: clap::ValueEnum>(text: &str) -> Option<T> {
    T::from_str(text.trim(), true).ok()
}

/// What a write's time ends with; recorded because it changes what a write sample measures.
pub const WRITE_ENDS: &str = "no: write ends when files are closed";

/// The settings of a run, each under its key in the environment block.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(into = "BTreeMap<String, String>", from = "BTreeMap<String, String>")]
pub struct RunSettings {
    /// The suite's name, or "(command line)".
    pub suite: String,
    pub quick: bool,
    /// Rounds (blocks) of the balanced schedule.
    pub blocks: u32,
    /// `--samples`: the most rounds a cell is measured in.
    pub max_rounds: Option<u32>,
    /// `None` in runs that recorded no choice: before this type, a second entry under the same
    /// key overwrote the choice with a fixed text.
    pub cache: Option<CacheChoice>,
    pub min_sample_s: f64,
    pub warmup: u32,
    /// The adaptive stopping rule's relative precision and budget, when it ran.
    pub precision: Option<f64>,
    pub budget_s: Option<f64>,
    /// The thread cap every backend ran under.
    pub threads: u32,
    pub timeout_s: f64,
    pub memory_limit_bytes: Option<u64>,
    /// A cluster peer's memory cap per executor (`--executor-memory`), when set.
    pub executor_memory_bytes: Option<u64>,
    /// The user's cluster the cluster peers attached to (`--cluster`), when they started none.
    pub cluster: Option<String>,
    pub seed: u64,
    /// The storage's key (`local`, `s3`) and its network profile's.
    pub storage: String,
    pub network: String,
    /// `None` in runs that recorded none (older ones).
    pub egress_price_per_gb: Option<f64>,
    pub session_queries: Option<u64>,
    pub prefer: Prefer,
    pub call: CallMode,
    /// `--reference BACKEND/PROFILE` of the heat map.
    pub reference: Option<String>,
    pub datasets: Vec<String>,
    /// Whether a write's time includes syncing its files ([`WRITE_ENDS`] when not).
    pub write_fsync: bool,
    /// Keys this version does not know (a newer formatbench's), kept so nothing read is lost.
    pub other: BTreeMap<String, String>,
}

/// The keys that change what a sample measures although its cell and data are the same: how
/// long a sample repeats its operation, the untimed runs before it, the rows and columns
/// operations choose, the queries a session runs, the worker's and an executor's memory caps
/// and whether a write syncs. A sample of a run that differed in any of them is not reused.
const MEASUREMENT_KEYS: [&str; 8] = [
    "min_sample_s",
    "warmup",
    "seed",
    "session_queries",
    "memory_limit_bytes",
    "executor_memory_bytes",
    "cluster",
    "write_fsync",
];

impl RunSettings {
    /// Every setting as it is recorded, in key order: the environment tables of reports and
    /// `compare` list these.
    pub fn entries(&self) -> BTreeMap<String, String> {
        let text = |v: Option<String>| v.unwrap_or_default();
        let mut out = self.other.clone();
        out.extend([
            ("suite".to_string(), self.suite.clone()),
            ("quick".into(), self.quick.to_string()),
            ("blocks".into(), self.blocks.to_string()),
            (
                "max_rounds".into(),
                text(self.max_rounds.map(|r| r.to_string())),
            ),
            (
                "cache".into(),
                text(self.cache.map(|c| c.name().to_string())),
            ),
            ("min_sample_s".into(), self.min_sample_s.to_string()),
            ("warmup".into(), self.warmup.to_string()),
            (
                "precision".into(),
                text(self.precision.map(|p| p.to_string())),
            ),
            (
                "budget_s".into(),
                text(self.budget_s.map(|b| b.to_string())),
            ),
            ("threads".into(), self.threads.to_string()),
            ("timeout_s".into(), self.timeout_s.to_string()),
            (
                "memory_limit_bytes".into(),
                text(self.memory_limit_bytes.map(|b| b.to_string())),
            ),
            (
                "executor_memory_bytes".into(),
                text(self.executor_memory_bytes.map(|b| b.to_string())),
            ),
            ("cluster".into(), text(self.cluster.clone())),
            ("seed".into(), self.seed.to_string()),
            ("storage".into(), self.storage.clone()),
            ("network".into(), self.network.clone()),
            (
                "egress_price_per_gb".into(),
                text(self.egress_price_per_gb.map(|p| p.to_string())),
            ),
            (
                "session_queries".into(),
                text(self.session_queries.map(|q| q.to_string())),
            ),
            ("prefer".into(), self.prefer.name().to_string()),
            ("call".into(), self.call.name().to_string()),
            ("reference".into(), text(self.reference.clone())),
            ("datasets".into(), self.datasets.join(",")),
            (
                "write_fsync".into(),
                if self.write_fsync {
                    "yes: write ends when its files are synced".to_string()
                } else {
                    WRITE_ENDS.to_string()
                },
            ),
        ]);
        out
    }

    /// Whether samples measured under `earlier` settings measure what these would.
    pub fn same_measurement(&self, earlier: &RunSettings) -> bool {
        let (now, then) = (self.entries(), earlier.entries());
        MEASUREMENT_KEYS.iter().all(|k| now.get(*k) == then.get(*k))
    }
}

impl From<RunSettings> for BTreeMap<String, String> {
    fn from(settings: RunSettings) -> Self {
        settings.entries()
    }
}

impl From<BTreeMap<String, String>> for RunSettings {
    /// Lenient, as a reader of older files must be: a key missing or unreadable takes its
    /// default, an unknown one is kept in `other`.
    fn from(mut map: BTreeMap<String, String>) -> Self {
        let mut take = |key: &str| map.remove(key).filter(|v| !v.is_empty());
        fn number<T: std::str::FromStr>(text: Option<String>) -> Option<T> {
            text.and_then(|t| t.trim().parse().ok())
        }
        let settings = RunSettings {
            suite: take("suite").unwrap_or_default(),
            quick: take("quick").is_some_and(|q| q == "true"),
            blocks: number(take("blocks")).unwrap_or_default(),
            max_rounds: number(take("max_rounds")),
            cache: take("cache").and_then(|c| recorded(&c)),
            min_sample_s: number(take("min_sample_s")).unwrap_or_default(),
            warmup: number(take("warmup")).unwrap_or_default(),
            precision: number(take("precision")),
            budget_s: number(take("budget_s")),
            threads: number(take("threads")).unwrap_or_default(),
            timeout_s: number(take("timeout_s")).unwrap_or_default(),
            memory_limit_bytes: number(take("memory_limit_bytes")),
            executor_memory_bytes: number(take("executor_memory_bytes")),
            cluster: take("cluster").filter(|c| !c.is_empty()),
            seed: number(take("seed")).unwrap_or_default(),
            storage: take("storage").unwrap_or_default(),
            network: take("network").unwrap_or_default(),
            egress_price_per_gb: number(take("egress_price_per_gb")),
            session_queries: number(take("session_queries")),
            // Anything unknown is balanced and warm, as it always was.
            prefer: take("prefer")
                .and_then(|p| recorded(&p))
                .unwrap_or_default(),
            call: take("call").and_then(|c| recorded(&c)).unwrap_or_default(),
            reference: take("reference"),
            datasets: take("datasets")
                .map(|d| d.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
            write_fsync: take("write_fsync").is_some_and(|w| w.starts_with("yes")),
            other: BTreeMap::new(),
        };
        RunSettings {
            other: map,
            ..settings
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded() -> RunSettings {
        RunSettings {
            suite: "default".into(),
            blocks: 3,
            cache: Some(CacheChoice::Cold),
            min_sample_s: 0.05,
            warmup: 1,
            precision: Some(0.05),
            threads: 2,
            timeout_s: 600.0,
            seed: 42,
            storage: "local".into(),
            network: "local".into(),
            egress_price_per_gb: Some(0.09),
            session_queries: Some(20),
            prefer: Prefer::Write,
            call: CallMode::First,
            reference: Some("ipc/default".into()),
            datasets: vec!["mixed-1000x6".into(), "mixed-10000x60".into()],
            ..RunSettings::default()
        }
    }

    #[test]
    fn settings_are_written_as_strings_and_read_back_typed() {
        let settings = recorded();
        let json = serde_json::to_value(&settings).unwrap();
        assert_eq!(json["cache"], "cold");
        assert_eq!(json["min_sample_s"], "0.05");
        assert_eq!(json["max_rounds"], "");
        assert_eq!(json["prefer"], "write");
        assert_eq!(json["write_fsync"], WRITE_ENDS);
        assert_eq!(json["datasets"], "mixed-1000x6,mixed-10000x60");
        let back: RunSettings = serde_json::from_value(json).unwrap();
        assert_eq!(back, settings);
    }

    #[test]
    fn an_older_record_reads_leniently_and_keeps_keys_it_does_not_know() {
        let older = serde_json::json!({
            "suite": "(command line)",
            "cache": "warm (whatever the page cache holds)",
            "call": "sideways",
            "from_the_future": "kept",
        });
        let read: RunSettings = serde_json::from_value(older).unwrap();
        assert_eq!(read.cache, None);
        assert_eq!(read.call, CallMode::Warm);
        assert_eq!(read.prefer, Prefer::Balanced);
        assert_eq!(read.other["from_the_future"], "kept");
        assert_eq!(read.entries()["from_the_future"], "kept");
    }

    #[test]
    fn runs_measure_alike_unless_a_measurement_setting_differs() {
        let now = recorded();
        let other_prefer = RunSettings {
            prefer: Prefer::Size,
            ..recorded()
        };
        assert!(now.same_measurement(&other_prefer));
        let other_queries = RunSettings {
            session_queries: Some(12),
            ..recorded()
        };
        assert!(!now.same_measurement(&other_queries));
        // A run recorded before a setting existed did not measure under this one's value.
        let older = RunSettings {
            session_queries: None,
            ..recorded()
        };
        assert!(!now.same_measurement(&older));
    }
}
