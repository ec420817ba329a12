//! One group's cells formatted once, so every renderer shows the same numbers, and the columns
//! the per-operation tables can hold.

use super::format::{self, one_line, truncate, DASH};
use super::winner;
use crate::results::{ArtifactRecord, CellKey, SampleStatus};
use crate::stats::{CellSummary, OpGroup};

/// Artifact settings that make up the fairness manifest, in the order they are shown.
const MANIFEST_KEYS: [&str; 21] = [
    "library",
    "profile_settings",
    "codecs",
    "encodings",
    "dictionary",
    "codec",
    "row_groups",
    // A user's file read as given (datasets/given.rs): what it is, beside the re-encodings.
    "row_group_rows",
    "page_index",
    "data_pages",
    "statistics",
    "sorted_by",
    "batches",
    "compression",
    "dialect",
    "blocks",
    "dtype",
    "data_files",
    "deleted_rows",
    "threads",
    // The row-group sweep's writes (run --row-group-rows): the size each was written with.
    "max_row_group_rows",
];
/// A manifest value is cut to this many characters; the artifacts table shows it whole.
const MANIFEST_VALUE: usize = 60;
/// Below this resident fraction a warm group shows its residency columns too.
const WARM_RESIDENT: f64 = 0.95;

/// One cell formatted once.
pub(super) struct Row<'a> {
    pub backend: &'a str,
    /// The profile, plus the layout or target when the group mixes several (else rows could
    /// look identical).
    pub profile: String,
    pub status: SampleStatus,
    /// Whitespace collapsed; empty when the cell gave none.
    pub reason: String,
    pub median: String,
    pub noisy: bool,
    pub range: String,
    /// Median of each sample's first call, and of its warm calls (whichever ranks).
    pub first_call: String,
    pub warm_call: String,
    /// MB/s of the source's logical size and rows/s at the median, where they apply.
    pub throughput: String,
    /// The terminal's short form: MB/s alone where it applies, else rows/s.
    pub rate: String,
    /// The paired ratio to the fastest with its interval; `1.00×` on the fastest row.
    pub ratio: String,
    /// The same for CPU time.
    pub cpu_ratio: String,
    /// The CPU-time estimate alone, two significant digits.
    pub cpu_short: String,
    pub parallelism: String,
    pub calls: String,
    pub size: String,
    pub per_value: String,
    pub peak: String,
    pub resident: String,
    /// Bytes fetched from storage per call; for a selective operation beside its full read's
    /// ("3.1 MB of 13.7 MB").
    pub read: String,
    /// Bytes asked for through read calls per call (page-cache hits included), likewise.
    pub requested: String,
    pub amplification: String,
    pub method: String,
    /// The fairness manifest of the cell's artifact.
    pub settings: String,
    pub flags: &'a [String],
}

impl Row<'_> {
    /// What the flag list under a table calls this row.
    pub fn label(&self) -> String {
        format!("{}/{}", self.backend, self.profile)
    }

    pub fn text(&self, field: Field) -> &str {
        match field {
            Field::Range => &self.range,
            Field::FirstCall => &self.first_call,
            Field::WarmCall => &self.warm_call,
            Field::Throughput => &self.throughput,
            Field::Rate => &self.rate,
            Field::Ratio => &self.ratio,
            Field::CpuRatio => &self.cpu_ratio,
            Field::CpuShort => &self.cpu_short,
            Field::Parallelism => &self.parallelism,
            Field::Calls => &self.calls,
            Field::Size => &self.size,
            Field::PerValue => &self.per_value,
            Field::Peak => &self.peak,
            Field::Resident => &self.resident,
            Field::Read => &self.read,
            Field::Requested => &self.requested,
            Field::Amplification => &self.amplification,
            Field::Method => &self.method,
            Field::Settings => &self.settings,
        }
    }
}

/// A column after backend, profile and median (which every renderer decorates its own way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Range,
    FirstCall,
    WarmCall,
    Throughput,
    Rate,
    Ratio,
    CpuRatio,
    CpuShort,
    Parallelism,
    Calls,
    Size,
    PerValue,
    Peak,
    Resident,
    Read,
    Requested,
    Amplification,
    Method,
    Settings,
}

impl Field {
    /// The Markdown and HTML header.
    pub fn name(self) -> &'static str {
        match self {
            Field::Range => "Min–max",
            Field::FirstCall => "First call",
            Field::WarmCall => "Warm calls",
            Field::Throughput => "Throughput",
            Field::Rate => "rate",
            Field::Ratio => "Ratio [95 % CI]",
            Field::CpuRatio => "CPU ratio [95 % CI]",
            Field::CpuShort => "CPU ratio",
            Field::Parallelism => "Parallelism",
            Field::Calls => "Calls",
            Field::Size => "Size",
            Field::PerValue => "B/value",
            Field::Peak => "Peak mem",
            Field::Resident => "Resident",
            Field::Read => "Read bytes",
            Field::Requested => "Bytes asked",
            Field::Amplification => "Read amplification",
            Field::Method => "Method",
            Field::Settings => "Settings",
        }
    }

    /// Numbers are right-aligned.
    pub fn right(self) -> bool {
        !matches!(self, Field::Method | Field::Settings)
    }
}

/// Cold groups, and warm ones whose cache state was not met, show residency and bytes read.
pub(super) fn shows_residency(group: &OpGroup) -> bool {
    group.cache == "cold"
        || group
            .cells
            .iter()
            .any(|c| c.resident_fraction.is_some_and(|f| f < WARM_RESIDENT))
}

/// A selective operation's group (project, range, take, …) shows the bytes its reads asked
/// for beside a full read's, whatever the cache held.
pub(super) fn shows_requested(group: &OpGroup) -> bool {
    crate::stats::full_op(&group.op).is_some()
        && group.cells.iter().any(|c| c.requested_bytes.is_some())
}

/// "3.1 MB of 13.7 MB": a selective operation's bytes beside its full read's (alone when the
/// full read's are unknown).
fn of_full(bytes: Option<u64>, full: Option<u64>) -> String {
    match (bytes, full) {
        (Some(bytes), Some(full)) => format!("{} of {}", format::bytes(bytes), format::bytes(full)),
        (Some(bytes), None) => format::bytes(bytes),
        (None, _) => DASH.to_string(),
    }
}

/// The bytes a cell asked for beside its full read's; `mapped` where the full read asked for
/// next to nothing of its artifact (its reads went through a memory map, which read calls do
/// not see).
fn requested_text(c: &CellSummary) -> String {
    let full = c.full_read.and_then(|f| f.requested_bytes);
    match (full, c.size_bytes) {
        (Some(full), Some(size)) if full.saturating_mul(100) < size => "mapped".into(),
        _ => of_full(c.requested_bytes, full),
    }
}

/// The Markdown and HTML columns after the median; `Settings` always comes last.
pub(super) fn detail_fields(group: &OpGroup) -> Vec<Field> {
    let mut fields = vec![
        Field::Range,
        Field::FirstCall,
        Field::WarmCall,
        Field::Throughput,
        Field::Ratio,
        Field::CpuRatio,
        Field::Parallelism,
        Field::Calls,
        Field::Size,
        Field::PerValue,
        Field::Peak,
    ];
    if shows_residency(group) {
        fields.extend([Field::Resident, Field::Read, Field::Amplification]);
    }
    if shows_requested(group) {
        fields.push(Field::Requested);
    }
    fields.extend([Field::Method, Field::Settings]);
    fields
}

fn or_dash<T>(value: Option<T>, show: impl Fn(T) -> String) -> String {
    value.map(show).unwrap_or_else(|| DASH.to_string())
}

/// The ratio column of a cell: the fastest reads `1.00×`, the others their paired estimate
/// with its interval (the plain median ratio when no rounds paired up), and a cell whose
/// ratio cannot be trusted `—`.
pub(super) fn ratio_text(cell: &CellSummary, fastest: bool) -> String {
    match (cell.ratio_to_best, cell.ratio) {
        (None, _) => DASH.to_string(),
        (Some(_), _) if fastest => format::ratio(1.0),
        (Some(_), Some(r)) => format::ratio_interval(r.estimate, r.lo, r.hi),
        (Some(plain), None) => format::ratio(plain),
    }
}

fn cpu_ratio_text(cell: &CellSummary, fastest: bool) -> String {
    match cell.cpu_ratio {
        Some(_) if fastest => format::ratio(1.0),
        Some(r) => format::ratio_interval(r.estimate, r.lo, r.hi),
        None => DASH.to_string(),
    }
}

/// The artifact settings that decide a comparison's fairness, as `key=value; …`.
pub(super) fn manifest(artifacts: &[ArtifactRecord], cell: &CellKey) -> String {
    let Some(artifact) = artifacts.iter().find(|a| a.is_of(cell)) else {
        return DASH.to_string();
    };
    let pairs: Vec<String> = MANIFEST_KEYS
        .iter()
        .filter_map(|key| {
            let value = artifact.settings.get(*key)?;
            Some(format!(
                "{key}={}",
                truncate(&one_line(value), MANIFEST_VALUE)
            ))
        })
        .collect();
    if pairs.is_empty() {
        DASH.to_string()
    } else {
        pairs.join("; ")
    }
}

pub(super) fn rows<'a>(group: &'a OpGroup, artifacts: &[ArtifactRecord]) -> Vec<Row<'a>> {
    let varies = |field: fn(&CellSummary) -> &str| {
        group
            .cells
            .iter()
            .any(|c| field(c) != group.cells.first().map_or("", field))
    };
    let show_layout = varies(|c| &c.cell.layout);
    let show_target = varies(|c| &c.cell.target);
    let best = winner(group);
    group
        .cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut profile = c.cell.profile.clone();
            if show_layout {
                profile = format!("{profile} · {}", c.cell.layout);
            }
            if show_target {
                profile = format!("{profile} · {}", c.cell.target);
            }
            if let Some(point) = c.cell.sweep_label() {
                profile = format!("{profile} · {point}");
            }
            if let Some(executors) = c.cell.executors {
                profile = format!("{profile} · {}", crate::results::executors_label(executors));
            }
            let fastest = best == Some(i);
            Row {
                backend: &c.cell.backend,
                profile,
                status: c.status,
                reason: c.reason.as_deref().map(one_line).unwrap_or_default(),
                median: or_dash(c.wall, |w| format::duration(w.median)),
                noisy: c.wall.is_some_and(|w| w.noisy()),
                range: or_dash(c.wall, |w| {
                    format!("{} – {}", format::duration(w.min), format::duration(w.max))
                }),
                first_call: or_dash(c.first_call, |w| format::duration(w.median)),
                warm_call: or_dash(c.warm_call, |w| format::duration(w.median)),
                throughput: or_dash(c.throughput, |t| t.text()),
                rate: or_dash(c.throughput, |t| t.headline()),
                ratio: ratio_text(c, fastest),
                cpu_ratio: cpu_ratio_text(c, fastest),
                cpu_short: or_dash(c.cpu_ratio, |r| {
                    format::ratio2(if fastest { 1.0 } else { r.estimate })
                }),
                parallelism: or_dash(c.parallelism, format::two_decimals),
                calls: or_dash(c.calls, format::count),
                size: or_dash(c.size_bytes, format::bytes),
                per_value: or_dash(c.bytes_per_value, format::per_value),
                peak: or_dash(c.peak_rss_bytes, format::bytes),
                resident: or_dash(c.resident_fraction, format::percent),
                read: of_full(c.read_bytes, c.full_read.and_then(|f| f.read_bytes)),
                requested: requested_text(c),
                amplification: or_dash(c.read_amplification, format::ratio2),
                method: c
                    .method
                    .as_deref()
                    .map_or_else(|| DASH.to_string(), one_line),
                settings: manifest(artifacts, &c.cell),
                flags: &c.flags,
            }
        })
        .collect()
}

/// Every flag of a table's rows, as (row label, flag), in row order.
pub(super) fn flag_list(rows: &[Row<'_>]) -> Vec<(String, String)> {
    rows.iter()
        .flat_map(|r| r.flags.iter().map(move |f| (r.label(), one_line(f))))
        .collect()
}
