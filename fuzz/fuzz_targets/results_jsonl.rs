#![no_main]
//! `report RUN_DIR` and `run --resume`: reading a results file, then summarising what it holds.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    formatbench_fuzz::with_file(data, "jsonl", |path| {
        if let Ok(records) = formatbench::results::read_records(path) {
            let _ = formatbench::stats::summarize_run_as(&records, None);
        }
    });
});
