//! formatbench's Arrow 58 worker: `--describe` or `--job PATH` (docs/protocol.md).

#[cfg(feature = "delta-arrow-reader")]
mod delta_arrow_reader_backend;
#[cfg(feature = "duckdb")]
mod duckdb_backend;
#[cfg(feature = "lance")]
mod lance_backend;

use formatbench_worker_kit::{Backend, KitError};

fn backends() -> Vec<&'static dyn Backend<Error = KitError>> {
    vec![
        #[cfg(feature = "duckdb")]
        &duckdb_backend::DuckDb,
        #[cfg(feature = "lance")]
        &lance_backend::Lance,
        #[cfg(feature = "delta-arrow-reader")]
        &formatbench_worker_kit::delta::DeltaReader(delta_arrow_reader_backend::DeltaArrowReader),
    ]
}

// The kit's allocator and its settings, as the built-in worker runs (kit/src/allocator.rs).
#[global_allocator]
static ALLOCATOR: formatbench_worker_kit::allocator::MiMalloc =
    formatbench_worker_kit::allocator::MiMalloc;

fn main() {
    formatbench_worker_kit::allocator::configure();
    let code = formatbench_worker_kit::worker_main("arrow58", &backends(), &built_without());
    std::process::exit(code);
}

/// The backends this build left out, by the cargo feature that adds each.
fn built_without() -> Vec<&'static str> {
    vec![
        #[cfg(not(feature = "duckdb"))]
        "duckdb",
        #[cfg(not(feature = "lance"))]
        "lance",
        #[cfg(not(feature = "delta-arrow-reader"))]
        "delta-arrow-reader",
    ]
}
