//! What a comparison of two runs holds: one entry per cell of either run, with its verdict,
//! the sizes of the artifacts, and what differs between the two environments. The builders
//! fill these in; every export renders them and computes nothing of its own.

use crate::results::{CellKey, SampleStatus};
use crate::stats::{CallMode, RatioInterval, RunSummary};
use crate::units::DASH;
use std::path::PathBuf;

/// Fewer measured samples than this on either side and a cell is not classified: one sample
/// has no spread, so no interval.
pub const MIN_SAMPLES: usize = crate::stats::MIN_INTERVAL_SAMPLES;

/// The false discovery rate a comparison's changed cells are called at (classify.rs).
pub const FALSE_DISCOVERY_RATE: f64 = 0.05;

/// The default threshold of `compare`: changes within ±5 % are not called a change.
pub const DEFAULT_THRESHOLD: f64 = 0.05;

/// `--fail-on regression` fails a comparison in which NEW measured fewer than this share of the
/// cells BASE measured: two unrelated runs (another suite, dataset or set of backends) compare
/// nothing, and a gate that compared nothing must not pass.
pub const MIN_COMPARED_SHARE: f64 = 0.5;

/// How a cell of NEW compares with the same cell of BASE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// Ran in BASE, failed (or no longer ran) in NEW: a regression of its own kind.
    FailedInNew,
    /// A discovery (Benjamini–Hochberg across the comparison's cells) of NEW ÷ BASE above
    /// 1 + threshold: alone, the whole 95 % interval lies above it.
    Slower,
    /// Not a discovery, and the interval reaches past the threshold band: the samples cannot
    /// tell whether the cell changed by more than the threshold (it may have).
    Inconclusive,
    /// The mirror of `Slower`: below 1 ÷ (1 + threshold).
    Faster,
    /// Failed or did not run in BASE, runs in NEW.
    FixedInNew,
    /// The interval lies inside the threshold band, or the cell could not be classified (too
    /// few samples, below the clock's resolution): the note says which.
    NoChange,
    /// A cell of one run only (a backend, operation or dataset the other did not measure).
    OnlyInBase,
    OnlyInNew,
    /// Did not run in either (unsupported, unavailable or failed in both).
    NotMeasured,
}

impl Verdict {
    pub const ALL: [Verdict; 9] = [
        Verdict::FailedInNew,
        Verdict::Slower,
        Verdict::Inconclusive,
        Verdict::Faster,
        Verdict::FixedInNew,
        Verdict::NoChange,
        Verdict::OnlyInBase,
        Verdict::OnlyInNew,
        Verdict::NotMeasured,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::FailedInNew => "failed in NEW",
            Verdict::Slower => "slower",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Faster => "faster",
            Verdict::FixedInNew => "fixed in NEW",
            Verdict::NoChange => "no change",
            Verdict::OnlyInBase => "only in BASE",
            Verdict::OnlyInNew => "only in NEW",
            Verdict::NotMeasured => "not measured",
        }
    }

    /// The machine-readable name (JSON): the name in snake case.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::FailedInNew => "failed_in_new",
            Verdict::Slower => "slower",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Faster => "faster",
            Verdict::FixedInNew => "fixed_in_new",
            Verdict::NoChange => "no_change",
            Verdict::OnlyInBase => "only_in_base",
            Verdict::OnlyInNew => "only_in_new",
            Verdict::NotMeasured => "not_measured",
        }
    }

    /// What `--fail-on regression` fails on.
    pub fn is_regression(self) -> bool {
        matches!(self, Verdict::FailedInNew | Verdict::Slower)
    }

    /// Whether an export that lists only changes lists it: a cell the samples cannot decide
    /// is counted, not listed, so that a long comparison of a busy machine stays short.
    pub fn is_change(self) -> bool {
        !matches!(
            self,
            Verdict::NoChange | Verdict::Inconclusive | Verdict::NotMeasured
        )
    }
}

/// One run's side of a cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub status: SampleStatus,
    pub reason: Option<String>,
    /// Measured (ok) samples.
    pub samples: usize,
    /// Median seconds per call of the compared call (`Comparison::call`).
    pub median_s: Option<f64>,
    pub peak_rss_bytes: Option<u64>,
    pub size_bytes: Option<u64>,
    /// Data per second at the median (`stats::Throughput`).
    pub throughput: Option<crate::stats::Throughput>,
}

impl Side {
    pub fn ran(&self) -> bool {
        self.status == SampleStatus::Ok && self.median_s.is_some()
    }

    /// The median, or the status when it did not run.
    pub fn text(&self) -> String {
        match self.median_s {
            Some(m) if self.status == SampleStatus::Ok => crate::units::duration(m),
            _ => self.status.name().to_string(),
        }
    }
}

/// The peak memory of a cell, NEW ÷ BASE, classified by the same rule as its time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryChange {
    pub ratio: RatioInterval,
    /// `Slower` here means more memory, `Faster` less.
    pub verdict: Verdict,
    pub p_value: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CellComparison {
    pub cell: CellKey,
    pub verdict: Verdict,
    /// Why a cell was not classified, or the failure of the side that did not run.
    pub note: Option<String>,
    pub base: Option<Side>,
    pub new: Option<Side>,
    /// NEW ÷ BASE of the geometric means with its 95 % pooled t interval.
    pub ratio: Option<RatioInterval>,
    /// The p-value of "changed by no more than the threshold" behind the verdict.
    pub p_value: Option<f64>,
    pub memory: Option<MemoryChange>,
}

/// One artifact's bytes on disk in each run, compared exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeChange {
    pub dataset: String,
    pub backend: String,
    pub profile: String,
    pub layout: String,
    /// The row-group sweep's point, when the artifact is one (plan/sweep.rs).
    pub row_group_rows: Option<u64>,
    pub sort_by: Option<String>,
    pub parquet_files: Option<u64>,
    pub base: Option<u64>,
    pub new: Option<u64>,
}

impl SizeChange {
    pub fn changed(&self) -> bool {
        self.base != self.new
    }

    pub fn label(&self) -> String {
        let layout = if self.layout == "wide" {
            String::new()
        } else {
            format!(" ({})", self.layout)
        };
        let point = crate::results::point_label(
            self.row_group_rows,
            self.parquet_files,
            self.sort_by.as_deref(),
        )
        .map(|p| format!(" ({p})"))
        .unwrap_or_default();
        format!(
            "{} · {}/{}{layout}{point}",
            self.dataset, self.backend, self.profile
        )
    }
}

/// One entry of the environment (a version, the CPU, a setting) that differs between the runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub what: String,
    pub base: String,
    pub new: String,
}

impl Difference {
    pub fn text(&self) -> String {
        format!("{}: {} → {}", self.what, self.base, self.new)
    }
}

/// One run as compared: where it is, its id and its summary (ranked by the compared call).
#[derive(Debug, Clone)]
pub struct RunSide {
    pub dir: PathBuf,
    pub run_id: String,
    pub summary: RunSummary,
}

#[derive(Debug, Clone)]
pub struct Comparison {
    pub base: RunSide,
    pub new: RunSide,
    /// Relative: 0.05 for ±5 %.
    pub threshold: f64,
    /// Which call of each sample both runs are compared by.
    pub call: CallMode,
    pub differences: Vec<Difference>,
    /// BASE's cells in its report order, then NEW's own.
    pub cells: Vec<CellComparison>,
    pub sizes: Vec<SizeChange>,
}

impl Comparison {
    /// How many cells got each verdict, in [`Verdict::ALL`] order, zeros left out.
    pub fn counts(&self) -> Vec<(Verdict, usize)> {
        Verdict::ALL
            .iter()
            .map(|v| (*v, self.cells.iter().filter(|c| c.verdict == *v).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Cells that `--fail-on regression` fails on.
    pub fn regressions(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| c.verdict.is_regression())
            .count()
    }

    /// BASE's measured cells, and how many of them NEW measured too (compared by their times).
    pub fn compared(&self) -> (usize, usize) {
        let ran = |side: &Option<Side>| side.as_ref().is_some_and(Side::ran);
        let measured = self.cells.iter().filter(|c| ran(&c.base));
        let both = measured.clone().filter(|c| ran(&c.new)).count();
        (measured.count(), both)
    }

    /// Why this comparison cannot gate a build: it compared no cell, or fewer than
    /// [`MIN_COMPARED_SHARE`] of BASE's measured cells.
    pub fn too_little_compared(&self) -> Option<String> {
        let (measured, both) = self.compared();
        if both > 0 && both as f64 >= MIN_COMPARED_SHARE * measured as f64 {
            return None;
        }
        Some(format!(
            "compared {both} of the {measured} cells BASE measured ({}); a gate needs NEW to \
             measure at least {:.0} % of them: compare two runs of one suite, datasets and backends",
            self.counts_text(),
            MIN_COMPARED_SHARE * 100.0
        ))
    }

    /// `2 slower, 1 faster, 40 no change` (every verdict that occurs).
    pub fn counts_text(&self) -> String {
        let parts: Vec<String> = self
            .counts()
            .iter()
            .map(|(v, n)| match self.unclassified() {
                // Cells not classified (too few samples) are no change, but never silently.
                k if *v == Verdict::NoChange && k > 0 => {
                    format!("{n} {} ({k} not classified: see their notes)", v.name())
                }
                _ => format!("{n} {}", v.name()),
            })
            .collect();
        if parts.is_empty() {
            "no cells".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// Cells called `no change` because they could not be classified (too few samples, a
    /// median below the clock's resolution, no positive times).
    pub fn unclassified(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| c.verdict == Verdict::NoChange && c.note.is_some())
            .count()
    }

    /// The rule in one sentence, for every export's header.
    pub fn rule_text(&self) -> String {
        let t = self.threshold * 100.0;
        format!(
            "NEW ÷ BASE of the geometric-mean time per call ({} calls) with a 95 % pooled t \
             interval of the log times; slower when its interval lies above {:.3}, faster when \
             below {:.3} (±{t:.1} %), as Benjamini–Hochberg discoveries at a {:.0} % false \
             discovery rate across the cells; no change when the interval lies within those \
             bounds, else inconclusive (it reaches past them); fewer than {MIN_SAMPLES} samples \
             a side are not classified",
            self.call.name(),
            1.0 + self.threshold,
            1.0 / (1.0 + self.threshold),
            FALSE_DISCOVERY_RATE * 100.0,
        )
    }

    /// A short name for each cell, naming only the keys that vary across the comparison
    /// (dataset, operation and competitor always).
    pub fn labels(&self) -> Vec<String> {
        let varies = |f: fn(&CellKey) -> String| {
            let mut values = self.cells.iter().map(|c| f(&c.cell));
            let first = values.next();
            values.any(|v| Some(v) != first)
        };
        let layout = varies(|k| k.layout.clone());
        let target = varies(|k| k.target.clone());
        let threads = varies(|k| k.threads.to_string());
        let cache = varies(|k| k.cache.clone());
        let place = varies(|k| format!("{} {}", k.storage, k.network));
        let dataset = varies(|k| format!("{} {}", k.dataset, k.dataset_fingerprint));
        self.cells
            .iter()
            .map(|c| {
                let k = &c.cell;
                let mut label = format!("{}/{}", k.backend, k.profile);
                if layout {
                    label.push_str(&format!(" {}", k.layout));
                }
                if target {
                    label.push_str(&format!(" →{}", k.target));
                }
                if let Some(point) = k.sweep_label() {
                    label.push_str(&format!(" ({point})"));
                }
                let mut op = k.op.clone();
                if cache && k.cache != "n/a" {
                    op.push_str(&format!(" {}", k.cache));
                }
                if threads {
                    op.push_str(&format!(" t{}", k.threads));
                }
                if place && k.storage != "local" {
                    op.push_str(&format!(" {} {}", k.storage, k.network));
                }
                if dataset {
                    format!("{} · {op} · {label}", k.dataset)
                } else {
                    format!("{op} · {label}")
                }
            })
            .collect()
    }
}

pub use crate::units::ratio as ratio_text;
use crate::units::ratio_decimals as decimals;

/// "1.03× [0.98–1.07]", or a dash.
pub fn interval_text(r: Option<&RatioInterval>) -> String {
    match r {
        Some(r) if r.estimate.is_finite() && r.lo.is_finite() && r.hi.is_finite() => {
            let d = decimals(r.estimate);
            format!("{:.d$}× [{:.d$}–{:.d$}]", r.estimate, r.lo, r.hi)
        }
        _ => DASH.to_string(),
    }
}
