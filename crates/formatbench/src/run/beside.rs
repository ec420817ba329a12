//! Other formatbench runs measuring on this machine at the same time: their workers compete for
//! the same cores, caches and disk, so a sample taken beside one may be slower. Each run keeps
//! a file in a per-user directory of active runs (`$FORMATBENCH_ACTIVE_DIR`, else
//! `$XDG_RUNTIME_DIR/formatbench/active`, else `/tmp/formatbench-UID/active`) locked with
//! flock(2) while it lives; a file whose lock can be taken belongs to a run that died, and is
//! removed. A machine where none of this can be made runs as before, unwatched.

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
    let entered = writeln!(
        file,
        "{}\n{}",
        std::process::id(),
        std::path::absolute(run_dir)
            .unwrap_or_else(|_| run_dir.to_path_buf())
            .display()
    )
    .is_ok()
        && try_flock(&file, libc::LOCK_EX)
        && std::fs::rename(&fresh, &path).is_ok();
    if !entered {
        let _ = std::fs::remove_file(&fresh);
        return None;
    }
    Some(Registration { path, _file: file })
}

impl Registration {
    /// The other runs measuring now; entries of runs that died are removed on the way.
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
            if path == self.path || path.extension().is_none_or(|e| e != "run") {
                continue;
            }
            let Ok(mut file) = File::open(&path) else {
                continue;
            };
            if try_flock(&file, libc::LOCK_SH) {
                // Its run is gone (killed, crashed) without removing it.
                let _ = std::fs::remove_file(&path);
                continue;
            }
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let mut lines = text.lines();
            if let Some(Ok(pid)) = lines.next().map(str::parse) {
                out.push(OtherRun {
                    pid,
                    run_dir: lines.next().unwrap_or("?").to_string(),
                });
            }
        }
        out.sort();
        out
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
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

    /// Whether another run is measuring now; one that was not before is said, once.
    pub fn check(&mut self) -> bool {
        let Some(registration) = &self.registration else {
            return false;
        };
        let others = registration.others();
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
}
