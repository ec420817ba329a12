//! Other formatbench runs measuring on this machine at the same time: their workers compete for
//! the same cores, caches and disk, so a sample taken beside one may be slower. Each run keeps
//! a file in a per-user directory of active runs (`$FORMATBENCH_ACTIVE_DIR`, else
//! `$XDG_RUNTIME_DIR/formatbench/active`, else `/tmp/formatbench-UID/active`) locked with
//! flock(2) while it lives; a file whose lock can be taken belongs to a run that died, and is
//! removed. A run that sees another also leaves a line in the other's visitors' file
//! (`NAME.seen`): a short run that starts and ends within one of the other's samples is then
//! still seen by it at its next check. A machine where none of this can be made runs as before,
//! unwatched.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// The flag of a sample measured while another run was measuring on this machine.
pub const BESIDE_FLAG: &str =
    "measured while another formatbench run was measuring on this machine";

/// A live run's entry; its file goes when it is dropped.
#[derive(Debug)]
pub struct Registration {
    path: PathBuf,
    /// What this run's own line in another's visitors' file says.
    line: String,
    /// How much of this run's visitors' file it has read.
    visits_read: std::cell::Cell<u64>,
    /// Holds the lock that says the run is alive.
    _file: File,
}

/// Another run found measuring.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct OtherRun {
    pub pid: u32,
    pub run_dir: String,
}

impl std::fmt::Display for OtherRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pid {}, run {}", self.pid, self.run_dir)
    }
}

/// Enters this run (its folder `run_dir`) among the active ones; None where there is no
/// directory of active runs to be had.
pub fn register(run_dir: &Path) -> Option<Registration> {
    register_in(&active_dir()?, run_dir)
}

fn register_in(dir: &Path, run_dir: &Path) -> Option<Registration> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let name = format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    // Written and locked under a name no one reads, then renamed: a `.run` file is locked for
    // as long as its run lives.
    let fresh = dir.join(format!(".{name}.new"));
    let path = dir.join(format!("{name}.run"));
    let mut file = File::create(&fresh).ok()?;
    let line = format!(
        "{}\n{}\n",
        std::process::id(),
        std::path::absolute(run_dir)
            .unwrap_or_else(|_| run_dir.to_path_buf())
            .display()
    );
    let entered = file.write_all(line.as_bytes()).is_ok()
        && try_flock(&file, libc::LOCK_EX)
        && std::fs::rename(&fresh, &path).is_ok();
    if !entered {
        let _ = std::fs::remove_file(&fresh);
        return None;
    }
    Some(Registration {
        path,
        line,
        visits_read: std::cell::Cell::new(0),
        _file: file,
    })
}

/// The visitors' file beside a run's entry.
fn visitors_file(entry: &Path) -> PathBuf {
    entry.with_extension("seen")
}

/// A run's entry (pid, run folder) as its file holds it.
fn parse_entries(text: &str) -> Vec<OtherRun> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .chunks(2)
        .filter_map(|pair| {
            Some(OtherRun {
                pid: pair.first()?.parse().ok()?,
                run_dir: pair.get(1).copied().unwrap_or("?").to_string(),
            })
        })
        .collect()
}

impl Registration {
    /// The runs that saw this one since the last call: they started and may have ended between
    /// two checks of this run.
    pub fn visitors(&self) -> Vec<OtherRun> {
        let Ok(mut file) = File::open(visitors_file(&self.path)) else {
            return Vec::new();
        };
        let mut text = String::new();
        if file.read_to_string(&mut text).is_err() {
            return Vec::new();
        }
        let read = usize::try_from(self.visits_read.get()).unwrap_or(usize::MAX);
        let Some(new) = text.get(read..) else {
            return Vec::new();
        };
        // Only whole entries (two whole lines): one being appended now is read next time.
        let lines: Vec<&str> = new.split_inclusive('\n').collect();
        let whole = lines.iter().take_while(|l| l.ends_with('\n')).count() / 2 * 2;
        let complete: usize = lines[..whole].iter().map(|l| l.len()).sum();
        self.visits_read.set((read + complete) as u64);
        parse_entries(&new[..complete])
    }

    /// The other runs measuring now; entries of runs that died are removed on the way. Each
    /// is told, in its visitors' file, that this run was there.
    pub fn others(&self) -> Vec<OtherRun> {
        let Some(dir) = self.path.parent() else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "seen") && !path.with_extension("run").exists()
            {
                // The visitors of a run that has ended.
                let _ = std::fs::remove_file(&path);
                continue;
            }
            if path == self.path || path.extension().is_none_or(|e| e != "run") {
                continue;
            }
            let Ok(mut file) = File::open(&path) else {
                continue;
            };
            if try_flock(&file, libc::LOCK_SH) {
                // Its run is gone (killed, crashed) without removing it.
                let _ = std::fs::remove_file(&path);
                let _ = std::fs::remove_file(visitors_file(&path));
                continue;
            }
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            if let Some(other) = parse_entries(&text).into_iter().next() {
                // One write of the whole entry: appends of two visitors do not interleave.
                let _ = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(visitors_file(&path))
                    .and_then(|mut seen| seen.write_all(self.line.as_bytes()));
                out.push(other);
            }
        }
        out.sort();
        out
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_file(visitors_file(&self.path));
    }
}

/// What a run knows of the runs beside it: the ones it has said, and how many of its samples
/// it flagged.
#[derive(Debug, Default)]
pub struct Neighbours {
    registration: Option<Registration>,
    said: std::collections::BTreeSet<OtherRun>,
    flagged: usize,
}

impl Neighbours {
    /// Enters the run in `run_dir` among the active ones, saying which others are measuring.
    pub fn enter(run_dir: &Path) -> Neighbours {
        let mut neighbours = Neighbours {
            registration: register(run_dir),
            ..Neighbours::default()
        };
        neighbours.check();
        neighbours
    }

    /// Whether another run is measuring now or came and went since the last check; one that
    /// was not said before is said, once.
    pub fn check(&mut self) -> bool {
        let Some(registration) = &self.registration else {
            return false;
        };
        let mut others = registration.others();
        others.extend(registration.visitors());
        for other in &others {
            if self.said.insert(other.clone()) {
                crate::progress::say(&format!(
                    "another formatbench run is measuring on this machine ({other}): samples \
                     taken beside it compete for its cores and disk and are flagged"
                ));
            }
        }
        !others.is_empty()
    }

    /// Flags a sample measured while another run was.
    pub fn flag(&mut self, record: &mut crate::results::SampleRecord) {
        record.flags.push(BESIDE_FLAG.into());
        self.flagged += 1;
    }

    /// The run's closing word on the samples it flagged, if any.
    pub fn note(&self) -> Option<String> {
        (self.flagged > 0).then(|| {
            format!(
                "{} sample{} measured while another formatbench run was measuring on this \
                 machine ({}): flagged in the report; measure again alone to trust their times",
                self.flagged,
                if self.flagged == 1 { " was" } else { "s were" },
                self.said
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        })
    }
}

/// Takes the lock without waiting; false when another process holds it or it failed.
fn try_flock(file: &File, operation: libc::c_int) -> bool {
    // SAFETY: flock on a descriptor this File owns; it touches no memory.
    unsafe { libc::flock(file.as_raw_fd(), operation | libc::LOCK_NB) == 0 }
}

/// The directory of this user's active runs, made private to them when new; None when it
/// cannot be made or another user owns it.
fn active_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("FORMATBENCH_ACTIVE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
            Some(runtime) if runtime.is_dir() => runtime.join("formatbench").join("active"),
            // SAFETY: getuid cannot fail and touches no memory.
            _ => std::env::temp_dir()
                .join(format!("formatbench-{}", unsafe { libc::getuid() }))
                .join("active"),
        },
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .ok()?;
    // A directory someone else made could be read or emptied by them.
    // SAFETY: as above.
    let mine = unsafe { libc::getuid() };
    let owned = |p: &Path| p.symlink_metadata().is_ok_and(|m| m.uid() == mine);
    (owned(&dir) && dir.parent().is_none_or(owned)).then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_live_run_sees_the_others_and_a_dead_ones_entry_goes() {
        let dir = tempfile::tempdir().unwrap();
        let a = register_in(dir.path(), Path::new("/runs/a")).unwrap();
        assert_eq!(a.others(), []);
        let b = register_in(dir.path(), Path::new("/runs/b")).unwrap();
        let pid = std::process::id();
        assert_eq!(
            a.others(),
            [OtherRun {
                pid,
                run_dir: "/runs/b".into()
            }]
        );
        assert_eq!(b.others()[0].run_dir, "/runs/a");
        // A run killed without cleaning up: its file stays, its lock does not.
        let dead = dir.path().join("999999-0.run");
        std::fs::write(&dead, "999999\n/runs/dead\n").unwrap();
        assert_eq!(a.others().len(), 1, "{:?}", a.others());
        assert!(!dead.exists(), "the dead run's entry is removed");
        drop(b);
        assert_eq!(a.others(), []);
        drop(a);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_run_that_came_and_went_between_two_checks_is_still_seen() {
        let dir = tempfile::tempdir().unwrap();
        let a = register_in(dir.path(), Path::new("/runs/a")).unwrap();
        assert_eq!(a.visitors(), []);
        // B starts, sees A, and ends before A looks again.
        let b = register_in(dir.path(), Path::new("/runs/b")).unwrap();
        assert_eq!(b.others().len(), 1);
        assert_eq!(b.others().len(), 1);
        drop(b);
        assert_eq!(a.others(), []);
        let seen = a.visitors();
        assert!(
            !seen.is_empty() && seen.iter().all(|o| o.run_dir == "/runs/b"),
            "{seen:?}"
        );
        // Told once: the next check finds no new visitor.
        assert_eq!(a.visitors(), []);
        drop(a);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
