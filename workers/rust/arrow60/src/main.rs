//! formatbench's Arrow 60 worker: `--describe` or `--job PATH` (docs/protocol.md).

#[cfg(feature = "delta-kernel")]
mod delta_kernel_backend;
#[cfg(feature = "zarr")]
mod zarr_backend;

use formatbench_worker_kit::{Backend, KitError};

fn backends() -> Vec<&'static dyn Backend<Error = KitError>> {
    vec![
        #[cfg(feature = "zarr")]
        &zarr_backend::Zarr,
        #[cfg(feature = "delta-kernel")]
        &delta_kernel_backend::DeltaKernel,
    ]
}

// The kit's allocator and its settings, as the built-in worker runs (kit/src/allocator.rs).
#[global_allocator]
static ALLOCATOR: formatbench_worker_kit::allocator::MiMalloc =
    formatbench_worker_kit::allocator::MiMalloc;

fn main() {
    formatbench_worker_kit::allocator::configure();
    let code = formatbench_worker_kit::worker_main("arrow60", &backends(), &built_without());
    std::process::exit(code);
}

/// The backends this build left out, by the cargo feature that adds each.
fn built_without() -> Vec<&'static str> {
    vec![
        #[cfg(not(feature = "zarr"))]
        "zarr",
        #[cfg(not(feature = "delta-kernel"))]
        "delta-kernel",
    ]
}
