//! Statistics over samples: quantiles, per-cell summaries, paired ratios to the fastest with
//! bootstrap intervals, geometric means.

mod across;
mod bootstrap;
mod call;
mod completeness;
mod growth;
mod model;
mod quantiles;
mod summary;
mod traffic;

pub use bootstrap::{
    geometric_mean, paired_ratio, unpaired_ratio, RatioInterval, BOOTSTRAP_SEED, RESAMPLES,
};
pub use call::CallMode;
pub use completeness::{Completeness, ShortCell};
pub use growth::{crossing, growth_ratio, log_log_slope, slope_with_interval, Slope};
pub use model::{
    CacheRatio, CellSummary, GeoMean, OpGroup, RunSummary, MIN_TICKS, PARALLELISM_LIMIT,
};
pub use quantiles::{median, quantile, Summary};
pub use summary::{is_reference, summarize_run, summarize_run_as};
pub use traffic::{egress_cost, DEFAULT_EGRESS_PRICE_PER_GB};
