//! `formatbench repair RUN`: the lines of a results file that are no records (a corrupt line
//! in the middle, a cut-off last one) are set aside, as a torn tail is before a resume, so
//! every record around them can be reported and resumed again.

use super::schema::{parse_line, Line};
use super::store::{for_each_line, set_aside};
use crate::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a repair did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Repair {
    /// Records kept, in their order and as written.
    pub kept: usize,
    /// The 1-based numbers of the lines set aside.
    pub set_aside: Vec<usize>,
    /// Lines of nothing but white space, dropped.
    pub blank: usize,
    /// Where the lines set aside went (`results.jsonl.unreadable-N`), each with its own newline.
    pub aside: Option<PathBuf>,
}

impl Repair {
    /// The one line `repair` prints.
    pub fn summary(&self, path: &Path) -> String {
        let Some(aside) = &self.aside else {
            return format!(
                "{}: nothing to repair: all {} lines are records{}",
                path.display(),
                self.kept,
                if self.blank > 0 {
                    format!(" ({} blank lines dropped)", self.blank)
                } else {
                    String::new()
                }
            );
        };
        let mut lines: Vec<String> = self
            .set_aside
            .iter()
            .take(10)
            .map(|n| n.to_string())
            .collect();
        if self.set_aside.len() > 10 {
            lines.push("…".into());
        }
        format!(
            "{}: set {} unreadable line{} aside in {} (line{} {}); {} records kept",
            path.display(),
            self.set_aside.len(),
            if self.set_aside.len() == 1 { "" } else { "s" },
            aside.display(),
            if self.set_aside.len() == 1 { "" } else { "s" },
            lines.join(", "),
            self.kept
        )
    }
}

/// Sets every line of the results file at `path` that is no record aside into the first free
/// `results.jsonl.unreadable-N`, and rewrites the file with the others, byte for byte. A record
/// of a results schema this formatbench does not know stops it before anything changes. The
/// caller holds the run folder's lock.
pub fn repair(path: &Path) -> Result<Repair, Error> {
    let mut repair = Repair::default();
    let mut kept = Vec::new();
    let mut aside = Vec::new();
    for_each_line(path, |number, text, ended, _| {
        match parse_line(text).map_err(|unknown| unknown.refusal(path, number))? {
            Line::Record(_) => {
                kept.extend_from_slice(text);
                kept.push(b'\n');
                repair.kept += 1;
            }
            Line::Blank => repair.blank += 1,
            Line::Unreadable(_) => {
                aside.extend_from_slice(text);
                if ended {
                    aside.push(b'\n');
                }
                repair.set_aside.push(number);
            }
        }
        Ok(())
    })?;
    if repair.set_aside.is_empty() && repair.blank == 0 {
        return Ok(repair);
    }
    // The lines go aside first: a crash between the two steps leaves them twice, never lost.
    if !repair.set_aside.is_empty() {
        repair.aside = Some(set_aside(path, "unreadable", &aside)?);
    }
    replace(path, &kept)?;
    Ok(repair)
}

/// Replaces the file at `path` with `bytes`, whole or not at all (a synced file renamed over it).
fn replace(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let fresh = path.with_extension("jsonl.repairing");
    let cannot = |e: std::io::Error| {
        Error::failed(format!(
            "cannot rewrite {} without its unreadable lines",
            path.display()
        ))(e)
    };
    let written = std::fs::File::create(&fresh)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()))
        .and_then(|()| std::fs::rename(&fresh, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&fresh);
        return Err(cannot(e));
    }
    if let Some(dir) = path.parent() {
        // The rename is durable once its directory is.
        let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{read_records, CellKey, Record, ResultsWriter, SampleRecord};
    use crate::results::{SampleStatus, RESULTS_FILE};

    fn sample(round: u32) -> Record {
        let mut s = SampleRecord::bare(
            "run",
            CellKey::example("b"),
            Some(round),
            SampleStatus::Ok,
            None,
        );
        s.wall_s = Some(0.25);
        Record::Sample(Box::new(s))
    }

    #[test]
    fn corrupt_lines_in_the_middle_go_aside_and_every_record_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let mut writer = ResultsWriter::open(&path).unwrap();
        for round in 1..=4 {
            writer.append(&sample(round)).unwrap();
        }
        drop(writer);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let corrupt = format!(
            "{}\n{}\n{{\"kind\":\"sam\n\n{}\n{}\nnot json\n{}",
            lines[0], lines[1], lines[2], lines[3], "{\"kind\":\"sample\",\"run"
        );
        std::fs::write(&path, &corrupt).unwrap();
        let refused = read_records(&path).unwrap_err().to_string();
        assert!(
            refused.contains("line 3 is not a formatbench record")
                && refused.contains("`formatbench repair "),
            "{refused}"
        );
        let repair = repair(&path).unwrap();
        assert_eq!(repair.kept, 4);
        assert_eq!(repair.set_aside, [3, 7, 8]);
        assert_eq!(repair.blank, 1);
        let aside = repair.aside.clone().unwrap();
        assert_eq!(aside, dir.path().join("results.jsonl.unreadable-1"));
        assert_eq!(
            std::fs::read_to_string(&aside).unwrap(),
            "{\"kind\":\"sam\nnot json\n{\"kind\":\"sample\",\"run"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            text,
            "the records are kept byte for byte"
        );
        assert_eq!(read_records(&path).unwrap().len(), 4);
        let said = repair.summary(&path);
        assert!(
            said.contains("set 3 unreadable lines aside in")
                && said.contains("(lines 3, 7, 8); 4 records kept"),
            "{said}"
        );
        // Repaired twice: nothing more to do, and nothing set aside is overwritten.
        let again = super::repair(&path).unwrap();
        assert_eq!(again.aside, None);
        assert!(again.summary(&path).contains("nothing to repair"));
        assert!(aside.exists());
    }

    #[test]
    fn a_record_of_a_newer_schema_stops_the_repair_before_any_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let newer = String::from_utf8(serde_json::to_vec(&sample(1)).unwrap())
            .unwrap()
            .replace("{\"kind\"", "{\"schema_version\":9,\"kind\"");
        let text = format!("garbage\n{newer}\n");
        std::fs::write(&path, &text).unwrap();
        let refused = repair(&path).unwrap_err().to_string();
        assert!(
            refused.contains("line 2 is a record of results schema version 9"),
            "{refused}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
