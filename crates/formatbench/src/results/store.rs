use super::Record;
use crate::Error;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

pub const RESULTS_FILE: &str = "results.jsonl";

/// Appends records, one line each, flushed and synced to the file system before returning.
pub struct ResultsWriter {
    file: File,
    /// Bytes of complete records: a failed append is cut back to this.
    length: u64,
}

impl ResultsWriter {
    /// Opens the results file for appending. A tail left by a crash (a record cut off by a
    /// kill, a full disk or a power loss) is moved aside to `results.jsonl.torn-N` and cut off
    /// first, so the next record starts on a line of its own.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let cannot = |e: std::io::Error| Error::Io(format!("cannot open {}: {e}", path.display()));
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(cannot)?;
        let length = set_torn_tail_aside(&mut file, path)?;
        Ok(ResultsWriter { file, length })
    }

    pub fn append(&mut self, record: &Record) -> Result<(), Error> {
        let mut line = serde_json::to_vec(record).map_err(Error::encode("a results record"))?;
        line.push(b'\n');
        // One write per line: with O_APPEND a line is never interleaved or half-replaced. A
        // write that fails part-way (disk full) is cut back, so the file keeps whole records.
        let written = self
            .file
            .write_all(&line)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            let _ = self.file.set_len(self.length);
            return Err(Error::Io(format!(
                "cannot append to the results file ({e}); every complete record before it is kept"
            )));
        }
        self.length += line.len() as u64;
        Ok(())
    }
}

/// Moves whatever follows the last complete record aside (a cut-off line, or a last line
/// that is not a record) into a numbered `.torn-N` file beside `path`, and truncates the file
/// to its complete records. Returns their length in bytes.
fn set_torn_tail_aside(file: &mut File, path: &Path) -> Result<u64, Error> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |e: std::io::Error| Error::Io(format!("cannot read {}: {e}", path.display()));
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    file.read_to_end(&mut bytes).map_err(io)?;
    let mut keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    // A last whole line that is not a record (a torn write that happened to end in a newline).
    let last_line_start = bytes[..keep.saturating_sub(1)]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let last_line = &bytes[last_line_start..keep];
    if !last_line.iter().all(u8::is_ascii_whitespace)
        && serde_json::from_slice::<Record>(last_line).is_err()
    {
        keep = last_line_start;
    }
    if keep == bytes.len() {
        return Ok(keep as u64);
    }
    let aside = (1..)
        .map(|n| path.with_extension(format!("jsonl.torn-{n}")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| path.with_extension("jsonl.torn"));
    std::fs::write(&aside, &bytes[keep..]).map_err(|e| {
        Error::Io(format!(
            "cannot set the torn tail aside in {}: {e}",
            aside.display()
        ))
    })?;
    file.set_len(keep as u64).map_err(io)?;
    file.sync_data().map_err(io)?;
    crate::progress::say(&format!(
        "{}: a cut-off last record ({} bytes) was moved to {}",
        path.display(),
        bytes.len() - keep,
        aside.display()
    ));
    Ok(keep as u64)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{CellKey, SampleRecord, SampleStatus};

    fn sample(round: u32) -> Record {
        let cell = CellKey {
            dataset: "d".into(),
            dataset_fingerprint: "fp".into(),
            backend: "ipc".into(),
            profile: "default".into(),
            layout: "default".into(),
            target: "arrow".into(),
            op: "read".into(),
            threads: 1,
            cache: "warm".into(),
            storage: "local".into(),
            network: "n/a".into(),
        };
        Record::Sample(Box::new(SampleRecord::bare(
            "run",
            cell,
            Some(round),
            SampleStatus::Ok,
            None,
        )))
    }

    #[test]
    fn a_cut_off_tail_is_moved_aside_before_the_next_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let mut writer = ResultsWriter::open(&path).unwrap();
        writer.append(&sample(1)).unwrap();
        writer.append(&sample(2)).unwrap();
        drop(writer);
        // A crash cut the third record off half-way.
        let whole = std::fs::read(&path).unwrap();
        let mut torn = whole.clone();
        torn.extend_from_slice(b"{\"kind\":\"sample\",\"run_id\":\"ru");
        std::fs::write(&path, &torn).unwrap();
        let mut writer = ResultsWriter::open(&path).unwrap();
        writer.append(&sample(3)).unwrap();
        let records = read_records(&path).unwrap();
        let rounds: Vec<Option<u32>> = records
            .iter()
            .map(|r| match r {
                Record::Sample(s) => s.round,
                _ => None,
            })
            .collect();
        assert_eq!(rounds, [Some(1), Some(2), Some(3)]);
        let aside = std::fs::read(dir.path().join("results.jsonl.torn-1")).unwrap();
        assert_eq!(aside, b"{\"kind\":\"sample\",\"run_id\":\"ru");
        // A second crash keeps the first tail and sets the new one beside it.
        let mut again = std::fs::read(&path).unwrap();
        again.extend_from_slice(b"garbage\n");
        std::fs::write(&path, &again).unwrap();
        ResultsWriter::open(&path).unwrap();
        assert!(dir.path().join("results.jsonl.torn-2").exists());
        assert_eq!(read_records(&path).unwrap().len(), 3);
    }
}
