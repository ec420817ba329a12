#![no_main]
//! A worker's answer file, as the runner reads it after the worker exits (out-of-tree workers
//! write it too): parsed, then written back the way a results record carries its fields.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(answer) = serde_json::from_slice::<formatbench_protocol::Answer>(data) {
        let again = serde_json::to_vec(&answer).unwrap_or_default();
        let _ = serde_json::from_slice::<formatbench_protocol::Answer>(&again);
    }
});
