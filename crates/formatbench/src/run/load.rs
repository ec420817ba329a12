//! Reading how busy the machine is around a sample: the kernel's CPU counters, run queue, load
//! average and CPU pressure just before the sample starts and just after its worker is reaped,
//! and the CPU time formatbench's own processes used between the two readings, so that what
//! remains is other processes' work ([`crate::results::MachineLoad`]).

use crate::results::{MachineLoad, MIN_CAPACITY_TICKS};
use formatbench_launcher::ticks_per_second;
use std::time::Instant;

/// One reading of the machine's counters.
#[derive(Debug, Clone)]
pub struct Reading {
    at: Instant,
    /// Ticks the CPUs spent working (user, nice, system, irq, softirq) and stolen.
    work_ticks: u64,
    steal_ticks: u64,
    all_ticks: u64,
    running: u32,
    cpus: u32,
    load1: f64,
    pressure: Option<f64>,
    /// CPU seconds of the runner itself and of its reaped children (the launcher, and through
    /// its wait the worker), and of the S3 server when there is one.
    own_cpu_s: f64,
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Seconds of a `timeval`.
fn seconds(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 / 1e6
}

/// User + system CPU seconds of `who` (`RUSAGE_SELF` or `RUSAGE_CHILDREN`).
fn rusage_cpu(who: libc::c_int) -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut usage) } != 0 {
        return 0.0;
    }
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// User + system CPU seconds of a live process (`/proc/PID/stat` fields 14 and 15).
fn process_cpu(pid: u32) -> f64 {
    i32::try_from(pid)
        .ok()
        .and_then(formatbench_launcher::stat)
        .map_or(0.0, |s| s.ticks as f64 / ticks_per_second())
}

impl Reading {
    /// The counters now; `server` is the S3 server's process, whose work is this run's own.
    pub fn now(server: Option<u32>) -> Reading {
        let stat = read("/proc/stat");
        let mut reading = Reading {
            at: Instant::now(),
            work_ticks: 0,
            steal_ticks: 0,
            all_ticks: 0,
            running: 0,
            cpus: 0,
            load1: read("/proc/loadavg")
                .split_whitespace()
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0),
            pressure: pressure(&read("/proc/pressure/cpu")),
            own_cpu_s: rusage_cpu(libc::RUSAGE_SELF)
                + rusage_cpu(libc::RUSAGE_CHILDREN)
                + server.map_or(0.0, process_cpu),
        };
        for line in stat.lines() {
            if let Some(rest) = line.strip_prefix("cpu ") {
                let t: Vec<u64> = rest
                    .split_whitespace()
                    .map(|v| v.parse().unwrap_or(0))
                    .collect();
                let at = |i: usize| t.get(i).copied().unwrap_or(0);
                // user nice system idle iowait irq softirq steal (guest time is in user).
                reading.work_ticks = at(0) + at(1) + at(2) + at(5) + at(6);
                reading.steal_ticks = at(7);
                reading.all_ticks = (0..8).map(at).sum();
            } else if line.starts_with("cpu") {
                reading.cpus += 1;
            } else if let Some(n) = line.strip_prefix("procs_running ") {
                // The runner reading this is one of them.
                reading.running = n.trim().parse::<u32>().unwrap_or(1).saturating_sub(1);
            }
        }
        reading
    }

    /// Counts `seconds` more of this run's own CPU time: processes below a worker that no wait
    /// reported (the launcher read them from /proc).
    pub fn add_own_cpu(&mut self, seconds: f64) {
        self.own_cpu_s += seconds;
    }

    /// The load between `self` (before a sample) and `after`.
    pub fn until(&self, after: &Reading) -> MachineLoad {
        let seconds = after.at.duration_since(self.at).as_secs_f64();
        let hz = ticks_per_second();
        let cpus = after.cpus.max(1);
        let capacity_ticks = seconds * hz * f64::from(cpus);
        let all = after.all_ticks.saturating_sub(self.all_ticks) as f64;
        let measurable = capacity_ticks >= MIN_CAPACITY_TICKS && all > 0.0;
        let work_s = after.work_ticks.saturating_sub(self.work_ticks) as f64 / hz;
        let own_s = (after.own_cpu_s - self.own_cpu_s).max(0.0);
        let steal = after.steal_ticks.saturating_sub(self.steal_ticks) as f64;
        MachineLoad {
            cpus,
            load1_before: self.load1,
            load1_after: after.load1,
            others_running_before: self.running,
            others_running_after: after.running,
            other_cpu_share: measurable
                .then(|| ((work_s - own_s) / (seconds * f64::from(cpus))).clamp(0.0, 1.0)),
            steal_share: measurable.then(|| steal / all),
            cpu_pressure_before: self.pressure,
        }
    }
}

/// The `some avg10` share of `/proc/pressure/cpu` (a percentage there), as a fraction.
fn pressure(text: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with("some "))?;
    let avg10 = line
        .split_whitespace()
        .find_map(|f| f.strip_prefix("avg10="))?;
    avg10.parse::<f64>().ok().map(|p| p / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_pressure_reads_the_some_line() {
        let text = "some avg10=12.50 avg60=3.00 avg300=1.00 total=1\n\
                    full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(pressure(text), Some(0.125));
        assert_eq!(pressure(""), None);
    }

    #[test]
    fn a_reading_of_this_machine_is_consistent() {
        let before = Reading::now(None);
        let spin = Instant::now();
        let mut x = 0u64;
        while spin.elapsed().as_millis() < 300 {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        let after = Reading::now(None);
        let load = before.until(&after);
        assert!(load.cpus >= 1);
        assert!(x > 0);
        assert!(load.load1_before >= 0.0 && load.load1_after >= 0.0);
        // Whatever else runs here, a share is a share.
        for share in [load.other_cpu_share, load.steal_share]
            .into_iter()
            .flatten()
        {
            assert!((0.0..=1.0).contains(&share), "{share}");
        }
    }
}
