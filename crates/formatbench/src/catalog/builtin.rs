//! The workers built into this binary: the native arrow-rs/parquet worker and the self-test
//! one. This is the one module of formatbench that links them (tests/architecture.rs checks
//! it): the binary runs them as its own workers (`formatbench __worker arrow|selftest`), and the
//! catalog lists their backends from what each declares, as it asks a heavy worker's program.
//! The runner, the plan, the analyses and the reports reach a worker only through the protocol,
//! the kit's source reader and digest, and the S3 client.

use super::{BackendInfo, TableTraits, WorkerKind};

/// The backend that is the memory-copy floor: a reference shown beside the formats, never
/// ranked among them.
pub const FLOOR: &str = formatbench_worker_arrow::backends::FLOOR;

/// The arrow-rs and parquet release the built-in worker runs on (they share one number).
pub const ARROW_VERSION: &str = formatbench_worker_arrow::ARROW_VERSION;

/// Runs a built-in worker (`formatbench __worker KIND ARGS…`); returns the exit code.
pub fn worker_main(args: &[String]) -> i32 {
    match args.split_first() {
        Some((kind, rest)) if kind == "arrow" => formatbench_worker_arrow::main_with_args(rest),
        Some((kind, rest)) if kind == "selftest" => {
            formatbench_worker_selftest::main_with_args(rest)
        }
        _ => {
            eprintln!("formatbench: unknown worker (known: arrow, selftest)");
            2
        }
    }
}

/// The built-in worker's backends, from their own declarations.
pub fn arrow_backends() -> Vec<BackendInfo> {
    formatbench_worker_arrow::BACKENDS
        .iter()
        .map(|b| BackendInfo {
            name: b.name().into(),
            worker: WorkerKind::Arrow,
            profiles: b.profiles().iter().map(|p| p.to_string()).collect(),
            ops: b.ops().to_vec(),
            layouts: b
                .layouts()
                .into_iter()
                .map(|(name, ops)| (name.to_string(), ops))
                .collect(),
            lossy: b.lossy(),
            other_widths: b.lossy(),
            about: b.about().into(),
            targets: vec!["arrow".into()],
            version: None,
            hidden: false,
            available: Ok(()),
            object_storage: b.object_storage(),
            table: TableTraits::default(),
            given: b.given_file(),
            format: b.format(),
            // The sweep's files are the native Parquet writer's own.
            file_sets: b.name() == super::SWEEP_WRITER,
            executors: false,
        })
        .collect()
}

/// The self-test worker's backends (hidden: they check formatbench, not a format).
pub fn selftest_backends() -> Vec<BackendInfo> {
    formatbench_worker_selftest::BACKENDS
        .iter()
        .map(|name| BackendInfo {
            name: name.to_string(),
            worker: WorkerKind::Selftest,
            profiles: formatbench_worker_selftest::profiles(name)
                .iter()
                .map(|p| p.to_string())
                .collect(),
            ops: formatbench_worker_selftest::ops(name),
            layouts: vec![("wide".into(), formatbench_worker_selftest::ops(name))],
            lossy: false,
            other_widths: false,
            about: "self-test worker with known behaviour".into(),
            targets: vec!["arrow".into()],
            version: None,
            hidden: true,
            available: Ok(()),
            object_storage: formatbench_worker_selftest::object_storage(name),
            table: TableTraits::default(),
            given: None,
            format: None,
            file_sets: false,
            executors: false,
        })
        .collect()
}
