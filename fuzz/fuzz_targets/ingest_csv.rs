#![no_main]
//! `run --input FILE.csv`: ingesting a user's csv file.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    formatbench_fuzz::with_file(data, "csv", formatbench_fuzz::ingest);
});
