//! formatbench's Arrow 59 worker: `--describe` or `--job PATH` (docs/protocol.md).

#[cfg(feature = "delta-rs")]
mod delta_rs_backend;
#[cfg(feature = "vortex")]
mod vortex_backend;

use formatbench_worker_kit::{Backend, KitError};

fn backends() -> Vec<&'static dyn Backend<Error = KitError>> {
    vec![
        #[cfg(feature = "vortex")]
        &vortex_backend::Vortex,
        #[cfg(feature = "delta-rs")]
        &formatbench_worker_kit::delta::DeltaReader(delta_rs_backend::DeltaRs),
    ]
}

// The kit's allocator and its settings, as the built-in worker runs (kit/src/allocator.rs).
#[global_allocator]
static ALLOCATOR: formatbench_worker_kit::allocator::MiMalloc =
    formatbench_worker_kit::allocator::MiMalloc;

fn main() {
    formatbench_worker_kit::allocator::configure();
    let code = formatbench_worker_kit::worker_main("arrow59", &backends(), &built_without());
    std::process::exit(code);
}

/// The backends this build left out, by the cargo feature that adds each.
fn built_without() -> Vec<&'static str> {
    vec![
        #[cfg(not(feature = "vortex"))]
        "vortex",
        #[cfg(not(feature = "delta-rs"))]
        "delta-rs",
    ]
}
