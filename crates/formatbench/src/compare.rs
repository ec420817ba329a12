//! `formatbench compare BASE NEW`: did it get slower? Two runs' cells matched by their keys,
//! each NEW ÷ BASE with a 95 % pooled t interval and a verdict by a documented rule, decided
//! across the cells at a controlled false discovery rate (`classify`), sizes compared exactly, peak memory by the same rule, and what differs between
//! the two environments first, because that is usually the cause. Named baselines
//! (`baselines/NAME.json` under the results directory) spare CI scripts the run ids. Each
//! output format has its own file; all render one [`Comparison`].

mod baseline;
mod build;
mod classify;
mod document;
mod environment;
mod json;
mod matching;
mod model;
mod rows;
#[cfg(test)]
mod simulation;

pub use baseline::{
    check_name as check_baseline_name, path_of as baseline_file, resolve as resolve_baseline,
    save as save_baseline, Baseline, BASELINES_DIR,
};
pub use build::{compare, load, LoadedRun};
pub use classify::{classify, control_false_discoveries, verdict_of, Classified};
pub use document::{document, html, markdown, terminal, Detail, ROWS as MARKDOWN_ROWS};
pub use json::{render as json, value as json_value, FORMAT_VERSION};
pub use model::{
    interval_text, CellComparison, Comparison, Difference, MemoryChange, RunSide, Side, SizeChange,
    Verdict, DEFAULT_THRESHOLD, FALSE_DISCOVERY_RATE, MIN_COMPARED_SHARE, MIN_SAMPLES,
};
