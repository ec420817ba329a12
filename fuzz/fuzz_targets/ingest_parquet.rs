#![no_main]
//! `run --input FILE.parquet`: ingesting a user's parquet file.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    formatbench_fuzz::with_file(data, "parquet", formatbench_fuzz::ingest);
});
