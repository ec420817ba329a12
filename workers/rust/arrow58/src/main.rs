//! formatbench's Arrow 58 worker: `--describe` or `--job PATH` (docs/protocol.md).

#[cfg(feature = "delta-arrow-reader")]
mod delta_arrow_reader_backend;
#[cfg(feature = "duckdb")]
mod duckdb_backend;
#[cfg(feature = "lance")]
mod lance_backend;

use formatbench_worker_kit::Backend;

fn backends() -> Vec<&'static dyn Backend> {
    vec![
        #[cfg(feature = "duckdb")]
        &duckdb_backend::DuckDb,
        #[cfg(feature = "lance")]
        &lance_backend::Lance,
        #[cfg(feature = "delta-arrow-reader")]
        &formatbench_worker_kit::delta::DeltaReader(delta_arrow_reader_backend::DeltaArrowReader),
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = formatbench_protocol::describe_or_run(
        &args,
        || {
            let mut described = formatbench_worker_kit::describe("arrow58", &backends());
            described["built_without"] = serde_json::json!(built_without());
            described
        },
        |job| formatbench_worker_kit::execute(job, &backends()),
    );
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
