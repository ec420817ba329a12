use super::schema::{parse_line, Line, Versioned, RESULTS_SCHEMA};
use super::Record;
use crate::Error;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

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
        let cannot = |e: std::io::Error| Error::at("open", path)(e);
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
        let mut line = serde_json::to_vec(&Versioned {
            record,
            schema_version: RESULTS_SCHEMA,
        })
        .map_err(Error::encode("a results record"))?;
        line.push(b'\n');
        // One write per line: with O_APPEND a line is never interleaved or half-replaced. A
        // write that fails part-way (disk full) is cut back, so the file keeps whole records.
        let written = self
            .file
            .write_all(&line)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            let _ = self.file.set_len(self.length);
            return Err(Error::failed(
                "cannot append to the results file (every complete record before it is kept)",
            )(e));
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
    let io = |e: std::io::Error| Error::at("read", path)(e);
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    file.read_to_end(&mut bytes).map_err(io)?;
    let mut keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    // A last whole line that is not a record (a torn write that happened to end in a newline).
    let last_line_start = bytes[..keep.saturating_sub(1)]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    if let Ok(Line::Unreadable(_)) = parse_line(&bytes[last_line_start..keep]) {
        keep = last_line_start;
    }
    if keep == bytes.len() {
        return Ok(keep as u64);
    }
    let aside = set_aside(path, "torn", &bytes[keep..])?;
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

/// Writes `bytes` (lines that are no records) to the first free `results.jsonl.LABEL-N` beside
/// `path`, synced, and returns its path: nothing set aside is ever overwritten.
pub(super) fn set_aside(path: &Path, label: &str, bytes: &[u8]) -> Result<PathBuf, Error> {
    let cannot = |aside: &Path, e: std::io::Error| {
        Error::failed(format!(
            "cannot set unreadable lines aside in {}",
            aside.display()
        ))(e)
    };
    for n in 1u32.. {
        let aside = path.with_extension(format!("jsonl.{label}-{n}"));
        let mut file = match OpenOptions::new().write(true).create_new(true).open(&aside) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(cannot(&aside, e)),
        };
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| cannot(&aside, e))?;
        return Ok(aside);
    }
    Err(Error::Io(format!(
        "cannot set unreadable lines aside beside {}: every name is taken",
        path.display()
    )))
}

/// A line of a results file that is no record, left out of what was read.
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedLine {
    /// 1-based.
    pub line: usize,
    pub bytes: usize,
    pub why: String,
    /// The last line of the file: a record cut off by a crash mid-write.
    pub cut_off: bool,
}

/// Every record of a results file, and the lines that are none.
#[derive(Debug, Default)]
pub struct ResultsRead {
    pub records: Vec<Record>,
    pub skipped: Vec<SkippedLine>,
}

impl ResultsRead {
    /// One line for the user on what was skipped in `path` and how to set it aside, if any.
    pub fn skipped_note(&self, path: &Path) -> Option<String> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let (cut, unreadable): (Vec<&SkippedLine>, Vec<&SkippedLine>) =
            self.skipped.iter().partition(|s| s.cut_off);
        let mut parts = Vec::new();
        if !unreadable.is_empty() {
            let mut lines: Vec<String> = unreadable
                .iter()
                .take(5)
                .map(|s| s.line.to_string())
                .collect();
            if unreadable.len() > 5 {
                lines.push("…".into());
            }
            parts.push(format!(
                "{} unreadable line{} ({}: {})",
                unreadable.len(),
                if unreadable.len() == 1 { "" } else { "s" },
                lines.join(", "),
                unreadable[0].why
            ));
        }
        if let Some(cut) = cut.first() {
            parts.push(format!(
                "a cut-off last line ({}, {} bytes: a crash mid-write)",
                cut.line, cut.bytes
            ));
        }
        if parts.is_empty() {
            return None;
        }
        Some(format!(
            "{}: skipped {}; `formatbench repair {}` sets {} aside",
            path.display(),
            parts.join(" and "),
            dir.display(),
            if self.skipped.len() == 1 {
                "it"
            } else {
                "them"
            }
        ))
    }
}

/// Calls `each` with every line of `path`: its 1-based number, its bytes without the newline,
/// whether it ended in one, and whether it is the last.
pub(super) fn for_each_line(
    path: &Path,
    mut each: impl FnMut(usize, &[u8], bool, bool) -> Result<(), Error>,
) -> Result<(), Error> {
    let file = File::open(path)
        .map_err(|e| Error::Input(format!("cannot open {}: {e}", path.display())))?;
    let cannot = |e: std::io::Error| Error::Input(format!("cannot read {}: {e}", path.display()));
    let mut reader = BufReader::new(file);
    let mut current = Vec::new();
    let mut next = Vec::new();
    reader.read_until(b'\n', &mut current).map_err(cannot)?;
    let mut number = 1;
    while !current.is_empty() {
        next.clear();
        reader.read_until(b'\n', &mut next).map_err(cannot)?;
        let ended = current.last() == Some(&b'\n');
        let text = if ended {
            &current[..current.len() - 1]
        } else {
            &current[..]
        };
        each(number, text, ended, next.is_empty())?;
        std::mem::swap(&mut current, &mut next);
        number += 1;
    }
    Ok(())
}

/// Reads every record, skipping (and listing) the lines that are none; a record of a results
/// schema this formatbench does not know is refused.
pub fn read_results(path: &Path) -> Result<ResultsRead, Error> {
    let mut read = ResultsRead::default();
    for_each_line(path, |number, text, ended, last| {
        match parse_line(text).map_err(|unknown| unknown.refusal(path, number))? {
            Line::Record(record) => read.records.push(record),
            Line::Blank => {}
            Line::Unreadable(why) => read.skipped.push(SkippedLine {
                line: number,
                bytes: text.len() + usize::from(ended),
                why,
                cut_off: last,
            }),
        }
        Ok(())
    })?;
    Ok(read)
}

/// Reads every complete record; a torn last line (a crash mid-write) is skipped, not fatal,
/// but a line in the middle that is no record stops the reading, naming `repair`.
pub fn read_records(path: &Path) -> Result<Vec<Record>, Error> {
    let read = read_results(path)?;
    if let Some(bad) = read.skipped.iter().find(|s| !s.cut_off) {
        return Err(Error::Input(format!(
            "{}: line {} is not a formatbench record ({}); `formatbench repair {}` sets such \
             lines aside and keeps every record",
            path.display(),
            bad.line,
            bad.why,
            path.parent().unwrap_or(Path::new(".")).display()
        )));
    }
    Ok(read.records)
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
            row_group_rows: None,
            parquet_files: None,
            sort_by: None,
            executors: None,
        };
        let mut sample = SampleRecord::bare("run", cell, Some(round), SampleStatus::Ok, None);
        sample.wall_s = Some(0.5);
        Record::Sample(Box::new(sample))
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
