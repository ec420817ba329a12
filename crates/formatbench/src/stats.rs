//! Statistics over samples: quantiles and per-cell summaries, ratios to the fastest.

mod quantiles;
mod summary;

pub use quantiles::{median, quantile, Summary};
pub use summary::{summarize_run, CellSummary, OpGroup, RunSummary};
