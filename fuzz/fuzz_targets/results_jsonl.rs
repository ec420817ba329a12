#![no_main]
//! `report RUN_DIR`, `run --resume` and `repair RUN`: reading a results file, summarising what
//! it holds, then repairing it, which must set every line aside or keep it, byte for byte, and
//! leave only lines that read back as records.

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    formatbench_fuzz::with_file(data, "jsonl", |path| {
        if let Ok(records) = formatbench::results::read_records(path) {
            let _ = formatbench::stats::summarize_run_as(&records, None);
        }
        let _ = formatbench::results::read_results(path);
        check_repair(path, data);
    });
});

/// Repairs the file at `path` (holding `data`) and checks what it left.
fn check_repair(path: &Path, data: &[u8]) {
    let repair = match formatbench::results::repair(path) {
        Ok(repair) => repair,
        Err(_) => {
            // Refused (a record of an unknown schema): nothing changed, nothing set aside.
            assert_eq!(std::fs::read(path).expect("the results file"), data);
            assert!(!path.with_extension("jsonl.unreadable-1").exists());
            return;
        }
    };
    let kept = std::fs::read(path).expect("the repaired file");
    let aside = match &repair.aside {
        Some(aside) => {
            let bytes = std::fs::read(aside).expect("the lines set aside");
            std::fs::remove_file(aside).expect("removing the lines set aside");
            bytes
        }
        None => Vec::new(),
    };
    let mut aside_lines = aside.split_inclusive(|&b| b == b'\n');
    let mut set_aside = repair.set_aside.iter().peekable();
    let mut expected_kept = Vec::new();
    let (mut kept_count, mut blank) = (0, 0);
    // Every line of the input is kept (ending in a newline), set aside (as it was) or blank.
    for (i, line) in data.split_inclusive(|&b| b == b'\n').enumerate() {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        if set_aside.peek() == Some(&&(i + 1)) {
            set_aside.next();
            assert_eq!(
                aside_lines.next(),
                Some(line),
                "line {} set aside as it was",
                i + 1
            );
        } else if text.iter().all(u8::is_ascii_whitespace) {
            blank += 1;
        } else {
            expected_kept.extend_from_slice(text);
            expected_kept.push(b'\n');
            kept_count += 1;
        }
    }
    assert_eq!(
        set_aside.next(),
        None,
        "only lines of the input are set aside"
    );
    assert_eq!(aside_lines.next(), None, "nothing else is set aside");
    assert_eq!((kept_count, blank), (repair.kept, repair.blank));
    if repair.aside.is_none() && repair.blank == 0 {
        assert_eq!(kept, data, "a file with nothing to repair is left alone");
    } else {
        assert_eq!(kept, expected_kept, "every other line kept, in order");
    }
    // What is kept reads back whole, as records.
    let read = formatbench::results::read_results(path).expect("the repaired file reads");
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert_eq!(read.records.len(), repair.kept);
}
