//! Statistics over samples: quantiles, per-cell summaries, paired ratios to the fastest with
//! t intervals of honest coverage, the one ranking every view shows, geometric means, and the
//! false-discovery control of comparisons.

mod across;
mod call;
mod completeness;
#[cfg(test)]
pub(crate) mod coverage;
mod discovery;
#[cfg(test)]
pub(crate) mod fixtures;
mod full_read;
mod growth;
mod interval;
mod load;
mod model;
mod quantiles;
mod ranking;
mod student;
mod summary;
mod traffic;

pub use crate::results::CallMode;
pub use completeness::{Completeness, ShortCell};
pub use discovery::benjamini_hochberg;
pub use full_read::full_op;
pub use growth::{crossing, growth_ratio, log_log_slope, slope_fit, Slope, SlopeFit};
pub use interval::{
    geometric_mean, paired_estimate, paired_log_ratio, paired_ratio, unpaired_log_ratio,
    unpaired_ratio, LogDifference, RatioInterval, CONFIDENCE, MIN_INTERVAL_SAMPLES,
};
pub use load::LoadSummary;
pub use model::{
    place, CacheRatio, CellSummary, FullRead, GeoMean, Margin, OpGroup, Pick, RunSummary,
    Throughput, MIN_TICKS, PARALLELISM_LIMIT, WHOLE_SOURCE_OPS,
};
pub use quantiles::{median, quantile, Summary};
pub use ranking::fastest;
pub use student::{t_cdf, t_quantile};
pub use summary::{is_reference, summarize_run, summarize_run_as};
pub use traffic::{egress_cost, DEFAULT_EGRESS_PRICE_PER_GB};
