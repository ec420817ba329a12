#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Fault injection: the runner killed at any point, a launcher or worker killed, a cut-off
//! results line, a full disk. After each, every complete sample is still in results.jsonl,
//! no process of the run is left, and `--resume` finishes the plan with no duplicates.

mod common;

use common::process::{kill, spawn, wait_for};
use common::{
    formatbench, measured_samples, mixed_run_args, records, report_md, run_dir, samples, stderr,
};
use formatbench::results::SampleStatus;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Processes whose command line mentions `marker` (a test's own --out directory), with the
/// command line, leaving zombies out (they run nothing).
fn processes_with(marker: &str) -> Vec<(i32, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
        let line = String::from_utf8_lossy(&raw).replace('\0', " ");
        if !zombie && line.contains(marker) {
            out.push((pid, line));
        }
    }
    out
}

/// `run` of self-test `backends` on a 100-row mixed table, reads only, `rounds` balanced
/// blocks, into `out`, with `extra` arguments: the plan every fault here starts from.
fn selftest_run(out: &Path, backends: &str, rounds: &str, extra: &[&str]) -> Vec<String> {
    let plan = ["--backends", backends, "--ops", "read", "--rounds", rounds];
    mixed_run_args(100, &[&plan[..], extra].concat(), out)
}

/// A run of a quick competitor and one whose every sample hangs until `timeout` seconds.
fn hang_plan(out: &Path, timeout: &str) -> Vec<String> {
    selftest_run(
        out,
        "selftest-noop,selftest-hang",
        "1",
        &["--timeout", timeout],
    )
}

/// Runs the hanging plan (a 60 s timeout: only a kill ends a hanging sample) and, whenever a
/// process `pick` chooses is running a hanging sample, SIGKILLs it and waits for `gone`
/// (given the killed pid and its command line) before looking again. Returns the run's exit
/// code and how many it killed, once the run has ended by itself.
fn kill_each_hanging(
    out: &Path,
    pick: impl Fn(&str) -> bool,
    gone: impl Fn(i32, &str) -> bool,
) -> (Option<i32>, usize) {
    let marker = out.display().to_string();
    let mut runner = spawn(&hang_plan(out, "60"));
    let mut killed = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    while runner.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the run did not finish");
        let running = processes_with(&marker);
        if let Some((pid, line)) = running.iter().find(|(_, l)| pick(l) && hang_job(l)) {
            kill(*pid, libc::SIGKILL);
            killed += 1;
            wait_for(
                "the killed process's sample to end",
                Duration::from_secs(5),
                || gone(*pid, line),
            );
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    (runner.wait().unwrap().code(), killed)
}

/// Resumes the run in `out`, then checks what every fault must leave: a finished plan with no
/// duplicate sample and a report that regenerates.
fn resume_completes(out: &Path) {
    let dir = run_dir(out);
    let resumed = formatbench(&[
        "run",
        "--resume",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    // Exit 1 when cells failed (a hanging one times out), never 2 or a crash.
    assert!(
        matches!(resumed.status.code(), Some(0 | 1)) && stderr(&resumed).contains("finished in"),
        "resume: {}",
        stderr(&resumed)
    );
    let measured = measured_samples(&dir);
    let keys: BTreeSet<_> = measured
        .iter()
        .map(|s| (s.cell.clone(), s.round, s.position))
        .collect();
    assert_eq!(keys.len(), measured.len(), "no sample twice");
    let report = report_md(&dir);
    assert!(
        !report.contains("Incomplete"),
        "the plan is finished: {report}"
    );
    let again = formatbench(&["report", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "report: {}", stderr(&again));
}

#[test]
fn a_killed_runner_leaves_no_process_behind_and_resumes() {
    let out = tempfile::tempdir().unwrap();
    let marker = out.path().display().to_string();
    // Only dying with the runner can end a hanging sample within the test's 5 s.
    let mut runner = spawn(&hang_plan(out.path(), "60"));
    // A hanging sample is running: kill the runner under it.
    wait_for("a hanging sample", Duration::from_secs(60), || {
        processes_with(&marker)
            .iter()
            .any(|(_, l)| l.contains("__launch") && hang_job(l))
    });
    kill(runner.id() as i32, libc::SIGKILL);
    let _ = runner.wait();
    wait_for(
        "the launcher and worker to die with the runner",
        Duration::from_secs(5),
        || processes_with(&marker).is_empty(),
    );
    // The resume's hanging samples time out sooner.
    let plan = run_dir(out.path()).join("plan.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    value["timeout"]["secs"] = 2.into();
    std::fs::write(&plan, value.to_string()).unwrap();
    resume_completes(out.path());
}

#[test]
fn a_killed_launcher_takes_its_worker_and_the_run_goes_on() {
    let out = tempfile::tempdir().unwrap();
    let (code, killed) = kill_each_hanging(
        out.path(),
        |line| line.contains("__launch") && line.contains("selftest"),
        // Its worker goes with it, before the runner starts anything else.
        |_, line| {
            let job = line.split_whitespace().last().unwrap_or_default();
            !processes_with(job)
                .iter()
                .any(|(_, l)| !l.contains("__launch"))
        },
    );
    // Exit 1: the hanging cell failed, every sample with its reason.
    assert_eq!(code, Some(1));
    assert!(killed >= 1);
    assert_eq!(
        failed_with(out.path(), "selftest-hang", &["launcher ended"]),
        killed
    );
    assert!(processes_with(&out.path().display().to_string()).is_empty());
}

#[test]
fn a_killed_worker_fails_its_sample_and_the_run_goes_on() {
    let out = tempfile::tempdir().unwrap();
    let marker = out.path().display().to_string();
    let (code, killed) = kill_each_hanging(
        out.path(),
        // The worker itself, not its launcher.
        |line| !line.contains("__launch") && line.contains("__worker"),
        |pid, _| !processes_with(&marker).iter().any(|(p, _)| *p == pid),
    );
    assert_eq!(code, Some(1));
    assert!(killed >= 1);
    assert_eq!(
        failed_with(out.path(), "selftest-hang", &["worker killed by SIGKILL"]),
        killed
    );
    assert!(processes_with(&marker).is_empty());
}

/// Whether a launcher's command line runs a measured selftest-hang sample (its job file names
/// the backend; preparing and verifying jobs do not hang).
fn hang_job(line: &str) -> bool {
    let job = line.split_whitespace().last().unwrap_or_default();
    let Ok(text) = std::fs::read_to_string(job) else {
        return false;
    };
    let Ok(job) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    job["backend"] == "selftest-hang" && job["prepare"] == false && job["verification"] == false
}

#[test]
fn the_runner_stopped_at_any_point_resumes_to_the_full_plan() {
    // SIGINT and SIGTERM stop cleanly, SIGKILL does not; at three points each.
    for (seed, signal) in [
        (1u64, libc::SIGINT),
        (2, libc::SIGTERM),
        (3, libc::SIGKILL),
        (4, libc::SIGKILL),
        (5, libc::SIGTERM),
    ] {
        let out = tempfile::tempdir().unwrap();
        let marker = out.path().display().to_string();
        let plan = ["--backends", "ipc,csv,selftest-noop", "--ops", "read,take"];
        let mut runner = spawn(&mixed_run_args(
            200,
            &[&plan[..], &["--rounds", "1"]].concat(),
            out.path(),
        ));
        // Somewhere between preparing and measuring, different for every seed.
        std::thread::sleep(Duration::from_millis(300 + 350 * seed));
        kill(runner.id() as i32, signal);
        let status = runner.wait().unwrap();
        if status.success() {
            // Finished before the signal: nothing to resume.
            continue;
        }
        wait_for("the run's processes to end", Duration::from_secs(5), || {
            processes_with(&marker).is_empty()
        });
        if std::fs::read_dir(out.path()).unwrap().next().is_none() {
            // Stopped before the run folder was made.
            continue;
        }
        resume_completes(out.path());
    }
}

#[test]
fn a_cut_off_results_line_is_set_aside_and_the_resume_completes() {
    let out = tempfile::tempdir().unwrap();
    let args = [
        "--backends",
        "ipc,selftest-noop",
        "--ops",
        "read",
        "--rounds",
        "1",
    ];
    let first = common::mixed_run(200, &args, out.path());
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let dir = run_dir(out.path());
    // A crash cut the last record off half-way.
    let path = dir.join("results.jsonl");
    let text = std::fs::read(&path).unwrap();
    let cut = text.len() - 40;
    std::fs::write(&path, &text[..cut]).unwrap();
    let before = samples(&dir).len();
    resume_completes(out.path());
    let torn = std::fs::read(dir.join("results.jsonl.torn-1")).unwrap();
    assert_eq!(
        torn,
        &text[text[..cut].iter().rposition(|&b| b == b'\n').unwrap() + 1..cut]
    );
    assert!(
        samples(&dir).len() > before,
        "the cut-off sample was measured again"
    );
}

/// A small tmpfs mounted for one test (root only), unmounted when dropped.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then_some(Tmpfs(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

#[test]
fn a_full_disk_keeps_every_complete_record() {
    use formatbench::results::{read_records, Record, ResultsWriter, SampleRecord};
    let Some(disk) = Tmpfs::mount("64k") else {
        common::available("mounting a tmpfs (root) for the disk-full test", false);
        return;
    };
    // Fill the disk but for a few kilobytes.
    let filler = disk.0.path().join("filler");
    let mut file = std::fs::File::create(&filler).unwrap();
    let chunk = vec![7u8; 4096];
    use std::io::Write;
    while file.write_all(&chunk).is_ok() {}
    drop(file);
    let len = std::fs::metadata(&filler).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&filler)
        .unwrap()
        .set_len(len - 6 * 1024)
        .unwrap();
    let path = disk.0.path().join("results.jsonl");
    let mut writer = ResultsWriter::open(&path).unwrap();
    let sample = |round| {
        let mut s = SampleRecord::bare(
            "run",
            formatbench::results::CellKey {
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
            },
            Some(round),
            SampleStatus::Ok,
            None,
        );
        s.reason = Some("x".repeat(700));
        s.wall_s = Some(0.5);
        Record::Sample(Box::new(s))
    };
    let mut written = 0;
    let error = loop {
        match writer.append(&sample(written + 1)) {
            Ok(()) => written += 1,
            Err(e) => break e.to_string(),
        }
        assert!(written < 100, "the disk never filled");
    };
    assert!(
        error.contains("every complete record before it is kept"),
        "{error}"
    );
    assert!(written >= 1);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.last(), Some(&b'\n'), "no partial line is left");
    assert_eq!(read_records(&path).unwrap().len(), written as usize);
}

#[test]
fn a_run_that_fills_its_disk_stops_keeping_every_sample_and_resumes_once_freed() {
    let Some(disk) = Tmpfs::mount("150k") else {
        common::available("mounting a tmpfs (root) for the disk-full test", false);
        return;
    };
    let out = disk.0.path().join("out");
    let run = formatbench(&selftest_run(&out, "selftest-noop", "60", &[]));
    let said = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(said.contains("No space left on device"), "{said}");
    assert!(
        said.contains("every complete sample") && said.contains("--resume"),
        "{said}"
    );
    assert!(!said.contains("panicked"), "{said}");
    let dir = run_dir(&out);
    let kept = samples(&dir).len();
    assert!(kept > 0, "samples were measured before the disk filled");
    // Room again: the resume finishes the plan from what was kept.
    let grown = Command::new("mount")
        .args(["-o", "remount,size=8m"])
        .arg(disk.0.path())
        .status()
        .unwrap();
    assert!(grown.success());
    resume_completes(&out);
    assert!(samples(&dir).len() > kept);
}

/// A run of the quick competitor beside `backend` (one block), with `extra` arguments.
fn misbehaving_run(out: &Path, backend: &str, extra: &[&str]) -> std::process::Output {
    formatbench(&selftest_run(
        out,
        &format!("selftest-noop,{backend}"),
        "1",
        extra,
    ))
}

/// The measured samples of `backend` in the run in `out`: each failed with a reason that says
/// all of `reasons`; returns how many.
fn failed_with(out: &Path, backend: &str, reasons: &[&str]) -> usize {
    let measured: Vec<_> = measured_samples(&run_dir(out))
        .into_iter()
        .filter(|s| s.cell.backend == backend)
        .collect();
    for s in &measured {
        assert_eq!(s.status, SampleStatus::Failed, "{backend}");
        let said = s.reason.as_deref().unwrap_or_default();
        for reason in reasons {
            assert!(said.contains(reason), "{backend}: {said}");
        }
    }
    measured.len()
}

#[test]
fn a_truncated_answer_fails_its_sample_and_the_run_goes_on() {
    let out = tempfile::tempdir().unwrap();
    let run = misbehaving_run(out.path(), "selftest-truncated", &[]);
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    // Two competitors: one block of four rounds.
    assert_eq!(
        failed_with(
            out.path(),
            "selftest-truncated",
            &["garbled answer", "EOF while parsing"]
        ),
        4
    );
    resume_completes(out.path());
}

#[test]
fn a_worker_past_its_memory_limit_fails_its_sample_and_the_run_goes_on() {
    let out = tempfile::tempdir().unwrap();
    // 512 MiB allocated and touched under a 256 MiB cap on address space.
    let run = misbehaving_run(
        out.path(),
        "selftest-alloc",
        &["--profiles", "default,512mib", "--memory-limit", "256MiB"],
    );
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    assert_eq!(
        failed_with(
            out.path(),
            "selftest-alloc",
            &[
                "memory allocation of 536870912 bytes failed",
                "under --memory-limit 256 MiB",
            ]
        ),
        4
    );
    let noop = measured_samples(&run_dir(out.path()))
        .into_iter()
        .filter(|s| s.cell.backend == "selftest-noop" && s.status == SampleStatus::Ok)
        .count();
    assert_eq!(noop, 4, "the competitor within the limit is measured");
    resume_completes(out.path());
}

/// The measured samples in `dir` so far (a line being written is left out).
fn measured(dir: &Path) -> usize {
    if !dir.join("results.jsonl").exists() {
        return 0;
    }
    measured_samples(dir).len()
}

/// `run --resume DIR --out OUT` as arguments.
fn resume_args(out: &Path, dir: &Path) -> Vec<String> {
    ["run", "--resume", dir.to_str().unwrap()]
        .iter()
        .map(|s| s.to_string())
        .chain(["--out".to_string(), out.display().to_string()])
        .collect()
}

/// The one line a refused writer prints: it names the run and the holder's pid.
fn assert_refused(refused: &std::process::Output, dir: &Path, holder: u32) {
    let said = stderr(refused);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert_eq!(said.trim_end().lines().count(), 1, "one line: {said}");
    assert!(
        said.contains(&format!(
            "cannot measure run {}: formatbench pid {holder} is measuring it",
            dir.display()
        )),
        "{said}"
    );
}

#[test]
fn two_resumes_of_one_run_measure_each_sample_once() {
    let out = tempfile::tempdir().unwrap();
    let marker = out.path().display().to_string();
    // Sleeps of 20 and 40 ms a call: 4 blocks of 4 rounds, 32 samples of a few tenths of a
    // second each, so a resume is still measuring when the next starts.
    let args = selftest_run(out.path(), "selftest-sleep", "4", &["--profiles", "x1,x2"]);
    let mut first = spawn(&args);
    let marker_dir = out.path().to_path_buf();
    wait_for("the run's first sample", Duration::from_secs(60), || {
        std::fs::read_dir(&marker_dir).unwrap().next().is_some()
            && measured(&run_dir(&marker_dir)) >= 1
    });
    kill(first.id() as i32, libc::SIGKILL);
    let _ = first.wait();
    wait_for("the run's processes to end", Duration::from_secs(5), || {
        processes_with(&marker).is_empty()
    });
    let dir = run_dir(out.path());
    let resume = resume_args(out.path(), &dir);

    // Started together: one measures, the other is refused naming it.
    let before = measured(&dir);
    let (mut a, mut b) = (spawn(&resume), spawn(&resume));
    let (loser, winner) = loop {
        if a.try_wait().unwrap().is_some() {
            break (a, b);
        }
        if b.try_wait().unwrap().is_some() {
            break (b, a);
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    let mut winner = winner;
    assert_refused(&loser.wait_with_output().unwrap(), &dir, winner.id());
    wait_for("the winner to measure", Duration::from_secs(60), || {
        measured(&dir) > before
    });
    kill(winner.id() as i32, libc::SIGKILL);
    let _ = winner.wait();
    wait_for(
        "the winner's processes to end",
        Duration::from_secs(5),
        || processes_with(&marker).is_empty(),
    );

    // Started while the first is measuring: refused, and the first finishes the plan.
    let before = measured(&dir);
    let running = spawn(&resume);
    wait_for("the resume to measure", Duration::from_secs(60), || {
        measured(&dir) > before
    });
    let second = formatbench(&resume);
    assert_refused(&second, &dir, running.id());
    // A report waits for its writer too: it would read a run half measured.
    let report = formatbench(&["report", dir.to_str().unwrap()]);
    assert_eq!(report.status.code(), Some(2), "{}", stderr(&report));
    assert!(
        stderr(&report).contains(&format!(
            "cannot report run {}: formatbench pid {} is measuring it",
            dir.display(),
            running.id()
        )),
        "{}",
        stderr(&report)
    );
    let finished = running.wait_with_output().unwrap();
    assert_eq!(finished.status.code(), Some(0), "{}", stderr(&finished));
    let measured = measured_samples(&dir);
    let keys: BTreeSet<_> = measured
        .iter()
        .map(|s| (s.cell.clone(), s.round, s.position))
        .collect();
    assert_eq!(keys.len(), measured.len(), "no sample measured twice");
    assert_eq!(measured.len(), 32, "the whole plan");
    let report = report_md(&dir);
    assert!(!report.contains("Incomplete"), "{report}");
    assert_eq!(
        std::fs::read_to_string(dir.join("run.lock")).unwrap(),
        "",
        "no holder once the run is done"
    );
}

/// Waits for `child` to exit (killing it and failing after `timeout`), with its stderr.
fn exited_within(mut child: Child, timeout: Duration, what: &str) -> std::process::Output {
    let deadline = Instant::now() + timeout;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path this test owns.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

#[test]
fn a_fifo_as_input_is_refused_at_once_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("feed.csv");
    mkfifo(&fifo);
    let out = dir.path().join("out");
    let args = [
        "run",
        "--input",
        fifo.to_str().unwrap(),
        "--backends",
        "ipc",
        "--ops",
        "read",
        "--out",
        out.to_str().unwrap(),
    ];
    let refused = |what: &str| {
        // Opening a FIFO without a writer waits for one: the run must not open it at all.
        let run = exited_within(spawn(&args), Duration::from_secs(30), what);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{what}: {err}");
        let said = format!("{} is a FIFO", fifo.display());
        assert!(err.contains(&said), "{what}: {err}");
        assert_eq!(
            err.lines().filter(|l| l.contains("error")).count(),
            1,
            "{err}"
        );
        let left = std::fs::read_dir(&out).map_or(0, |d| d.count());
        assert_eq!(left, 0, "{what}: no run folder is left");
    };
    refused("a FIFO without a writer");
    // With a writer, reading it failed with "Illegal seek (os error 29)" and no path.
    let csv = dir.path().join("data.csv");
    std::fs::write(&csv, "a,b\n1,2\n").unwrap();
    let mut writer = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec cat '{}' > '{}'",
            csv.display(),
            fifo.display()
        ))
        .spawn()
        .unwrap();
    refused("a FIFO with a writer");
    let _ = writer.kill();
    let _ = writer.wait();
}

#[test]
fn sigterm_while_reading_an_input_stops_the_run_like_ctrl_c() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    // Large enough that reading it takes seconds in a debug build.
    let csv = dir.path().join("big.csv");
    let mut text = std::io::BufWriter::new(std::fs::File::create(&csv).unwrap());
    writeln!(text, "a,b,c,d,e,f,g,h").unwrap();
    for row in 0..400_000u64 {
        let v = row * 7919;
        writeln!(
            text,
            "{row},{v},{},{},{},{},{},{}",
            v + 1,
            v + 2,
            v + 3,
            v + 4,
            v + 5,
            v + 6
        )
        .unwrap();
    }
    text.flush().unwrap();
    drop(text);
    let out = dir.path().join("out");
    let mut runner = spawn(&[
        "run",
        "--input",
        csv.to_str().unwrap(),
        "--backends",
        "ipc",
        "--ops",
        "read",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (tx, rx) = std::sync::mpsc::channel();
    let lines = BufReader::new(runner.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in lines.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut said = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !said.iter().any(|l: &String| l.contains("dataset big:")) {
        assert!(
            Instant::now() < deadline,
            "the run never began reading: {said:?}"
        );
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            said.push(line);
        }
    }
    kill(runner.id() as i32, libc::SIGTERM);
    let run = exited_within(runner, Duration::from_secs(30), "the run after SIGTERM");
    // The rest of its lines, up to the pipe's end.
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(5)) {
        said.push(line);
    }
    assert_eq!(run.status.code(), Some(130), "{said:?}");
    assert!(said.iter().any(|l| l.contains("interrupted")), "{said:?}");
    // It stopped inside the reading: the dataset was never recorded, nothing was measured.
    let records = records(&run_dir(&out));
    assert!(
        !records
            .iter()
            .any(|r| matches!(r, formatbench::results::Record::Dataset(_))),
        "{said:?}"
    );
    assert!(samples(&run_dir(&out)).is_empty());
}
