#![no_main]
//! `run --input FILE.arrow`: ingesting a user's ipc file.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    formatbench_fuzz::with_file(data, "arrow", formatbench_fuzz::ingest);
});
