use super::Record;
use crate::Error;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

pub const RESULTS_FILE: &str = "results.jsonl";

/// Appends records, one line each, flushed and synced to the file system before returning.
pub struct ResultsWriter {
    file: File,
}

impl ResultsWriter {
    pub fn open(path: &Path) -> Result<Self, Error> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::Io(format!("cannot open {}: {e}", path.display())))?;
        Ok(ResultsWriter { file })
    }

    pub fn append(&mut self, record: &Record) -> Result<(), Error> {
        let mut line = serde_json::to_vec(record).map_err(|e| Error::Io(e.to_string()))?;
        line.push(b'\n');
        // One write per line: with O_APPEND a line is never interleaved or half-replaced.
        self.file
            .write_all(&line)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| Error::Io(format!("cannot append to the results file: {e}")))
    }
}

/// Reads every complete record; a torn last line (a crash mid-write) is skipped, not fatal.
pub fn read_records(path: &Path) -> Result<Vec<Record>, Error> {
    let file = File::open(path)
        .map_err(|e| Error::Input(format!("cannot open {}: {e}", path.display())))?;
    let mut records = Vec::new();
    let lines: Vec<String> = BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(|e| Error::Input(format!("cannot read {}: {e}", path.display())))?;
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(line) {
            Ok(mut record) => {
                if let Record::Sample(sample) = &mut record {
                    sample.cpu_to_per_call();
                }
                records.push(record)
            }
            Err(_) if i == last => {}
            Err(e) => {
                return Err(Error::Input(format!(
                    "{}: line {} is not a formatbench record: {e}",
                    path.display(),
                    i + 1
                )))
            }
        }
    }
    Ok(records)
}
