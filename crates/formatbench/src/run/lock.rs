//! One writer per run folder: `run`, `--resume` and `repair` hold an exclusive lock on the
//! folder's `run.lock` (flock(2), so a crashed holder's lock goes with it), with the holder's
//! pid written inside; `report` holds a shared one while it reads. A second writer is refused
//! in one line naming the run and the holder, before it reads or removes anything: two writers
//! would measure the same samples twice and delete each other's scratch files.

use crate::Error;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

pub const LOCK_FILE: &str = "run.lock";

/// What the exclusive holder is doing, written beside its pid for the refusal to name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    Measuring,
    Repairing,
}

impl Activity {
    fn name(self) -> &'static str {
        match self {
            Activity::Measuring => "measuring",
            Activity::Repairing => "repairing",
        }
    }

    /// What a second process asking for the lock wanted to do.
    fn verb(self) -> &'static str {
        match self {
            Activity::Measuring => "measure",
            Activity::Repairing => "repair",
        }
    }
}

/// A lock on a run folder, released when dropped (or when the process dies).
#[derive(Debug)]
pub struct RunLock {
    file: File,
    exclusive: bool,
}

impl RunLock {
    /// The lock of the one writer of `run_dir`: refused (exit 2) while another process holds
    /// either lock.
    pub fn exclusive(run_dir: &Path, activity: Activity) -> Result<RunLock, Error> {
        let path = run_dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(Error::at("lock", &path))?;
        if !try_flock(&file, libc::LOCK_EX).map_err(|e| locking(&path, e))? {
            return Err(refusal(run_dir, &mut file, activity.verb()));
        }
        // The pid is written after the lock is held; a refusal waits a moment for it. One
        // write of the whole line: `writeln!` on a file writes each piece apart, and a refusal
        // reading between them would name the pid without its activity.
        let line = format!("{} {}\n", std::process::id(), activity.name());
        let _ = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(line.as_bytes()));
        Ok(RunLock {
            file,
            exclusive: true,
        })
    }

    /// A reader's lock on `run_dir`: refused while a writer holds it. None where no lock file
    /// can be made (a read-only folder, which no run can be writing to either).
    pub fn shared(run_dir: &Path) -> Result<Option<RunLock>, Error> {
        let path = run_dir.join(LOCK_FILE);
        let opened = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .or_else(|_| File::open(&path));
        let Ok(mut file) = opened else {
            return Ok(None);
        };
        if !try_flock(&file, libc::LOCK_SH).map_err(|e| locking(&path, e))? {
            return Err(refusal(run_dir, &mut file, "report"));
        }
        Ok(Some(RunLock {
            file,
            exclusive: false,
        }))
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // The pid goes with the lock, so a later refusal never names a process that is gone.
        if self.exclusive {
            let _ = self.file.set_len(0);
        }
    }
}

fn locking(path: &Path, e: std::io::Error) -> Error {
    Error::at("lock", path)(e)
}

/// Takes the lock `operation` without waiting: false when another process holds it.
fn try_flock(file: &File, operation: libc::c_int) -> std::io::Result<bool> {
    loop {
        // SAFETY: flock on a descriptor this File owns; it touches no memory.
        let done = unsafe { libc::flock(file.as_raw_fd(), operation | libc::LOCK_NB) };
        if done == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EWOULDBLOCK) => return Ok(false),
            Some(libc::EINTR) => continue,
            _ => return Err(e),
        }
    }
}

/// The one line refusing to `what` the run in `run_dir` while another process holds its lock.
fn refusal(run_dir: &Path, file: &mut File, what: &str) -> Error {
    let holder = holder(file);
    let run = run_dir.display();
    Error::Input(match holder {
        Some((pid, activity)) => format!(
            "cannot {what} run {run}: formatbench pid {pid} is {activity} it (it holds {LOCK_FILE}); \
             one writer at a time, so no sample is measured twice: wait for it to end"
        ),
        None => format!(
            "cannot {what} run {run}: another formatbench is reading it (`report`, which holds \
             {LOCK_FILE}); try again once it has finished"
        ),
    })
}

/// The exclusive holder's pid and activity, waiting up to a second for a holder that has just
/// taken the lock to write them; None when the holders are readers (they write nothing).
fn holder(file: &mut File) -> Option<(u32, String)> {
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let mut text = String::new();
        let read = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_string(&mut text));
        // Only a whole line counts: the holder may be between truncating and writing it.
        let whole = text.ends_with('\n');
        let mut words = text.split_whitespace();
        if let (Ok(_), true, Some(Ok(pid))) = (read, whole, words.next().map(str::parse::<u32>)) {
            return Some((pid, words.next().unwrap_or("using").to_string()));
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_or_a_reader_is_refused_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::exclusive(dir.path(), Activity::Measuring).unwrap();
        let written = std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap();
        assert_eq!(written, format!("{} measuring\n", std::process::id()));
        // flock locks belong to the open file: a second open is a second holder even in one
        // process, as in two.
        let second = RunLock::exclusive(dir.path(), Activity::Measuring).unwrap_err();
        let said = second.to_string();
        assert_eq!(second.exit_code(), 2);
        assert!(
            said.starts_with(&format!(
                "cannot measure run {}: formatbench pid {} is measuring it",
                dir.path().display(),
                std::process::id()
            )) && !said.contains('\n'),
            "{said}"
        );
        let reader = RunLock::shared(dir.path()).unwrap_err().to_string();
        assert!(reader.starts_with("cannot report run "), "{reader}");
        drop(first);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap(),
            "",
            "the pid goes with the lock"
        );
        // Readers share; a writer waits for them all.
        let a = RunLock::shared(dir.path()).unwrap().unwrap();
        let b = RunLock::shared(dir.path()).unwrap().unwrap();
        let refused = RunLock::exclusive(dir.path(), Activity::Repairing)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("another formatbench is reading it"),
            "{refused}"
        );
        drop((a, b));
        RunLock::exclusive(dir.path(), Activity::Repairing).unwrap();
    }
}
