//! How busy the machine was around one sample, and when that makes the sample suspect. Other
//! processes competing for the cores slow a sample down and make it noisier without failing it,
//! so the runner records what the kernel says before and after each sample, and a sample taken
//! while other work held the cores is flagged (and said in every report and in `compare`).

use serde::{Deserialize, Serialize};

/// The flag of a sample measured while other processes kept the machine busy.
pub const BUSY_FLAG: &str = "measured while the machine was busy (other processes' work)";

/// Other processes used at least this share of the machine's CPU capacity over a sample.
pub const BUSY_OTHER_CPU: f64 = 0.25;
/// The hypervisor took at least this share of the CPUs' time (steal) over a sample.
pub const BUSY_STEAL: f64 = 0.10;
/// Samples shorter than this many CPU ticks of capacity (cores × seconds × 100) have no
/// reliable share: the kernel counts CPU time in ticks of 10 ms.
pub const MIN_CAPACITY_TICKS: f64 = 20.0;

/// The machine's load around one sample.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct MachineLoad {
    /// The CPUs the kernel counts (`/proc/stat`): what the shares and the run queue are of.
    pub cpus: u32,
    /// The 1-minute load average before and after the sample (it includes this run's own work).
    pub load1_before: f64,
    pub load1_after: f64,
    /// Runnable processes other than formatbench's runner, just before the sample started and
    /// just after its worker ended (the kernel's `procs_running`).
    pub others_running_before: u32,
    pub others_running_after: u32,
    /// The share of the machine's CPU time (cores × the sample's seconds) that processes other
    /// than the sample's worker, formatbench's runner and its S3 server used while it ran;
    /// absent for a sample too short to tell ([`MIN_CAPACITY_TICKS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_cpu_share: Option<f64>,
    /// The share of the CPUs' time the hypervisor gave to other guests (steal) while it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_share: Option<f64>,
    /// The kernel's CPU pressure before the sample: the share of the last 10 s in which some
    /// runnable task waited for a CPU (`/proc/pressure/cpu`, where the kernel has it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_pressure_before: Option<f64>,
}

impl MachineLoad {
    /// Why the sample was taken on a busy machine, or `None` when nothing says it was: other
    /// processes used a quarter of the CPUs, the hypervisor stole a tenth, or other runnable
    /// processes held every CPU both before and after it (a sample too short for a share has
    /// only this; half the CPUs flagged short samples beside a passing kernel thread).
    pub fn busy(&self) -> Option<String> {
        if let Some(share) = self.other_cpu_share.filter(|s| *s >= BUSY_OTHER_CPU) {
            return Some(format!(
                "other processes used {:.0} % of the CPUs",
                100.0 * share
            ));
        }
        if let Some(steal) = self.steal_share.filter(|s| *s >= BUSY_STEAL) {
            return Some(format!(
                "the hypervisor took {:.0} % of the CPUs (steal)",
                100.0 * steal
            ));
        }
        let cpus = self.cpus.max(1);
        let queued = self.others_running_before.min(self.others_running_after);
        (queued >= cpus).then(|| {
            format!("other runnable processes held {queued} of {cpus} CPUs before and after it")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> MachineLoad {
        MachineLoad {
            cpus: 2,
            load1_before: 0.3,
            load1_after: 0.4,
            others_running_before: 0,
            others_running_after: 0,
            other_cpu_share: Some(0.02),
            steal_share: Some(0.0),
            cpu_pressure_before: Some(0.5),
        }
    }

    #[test]
    fn a_quiet_sample_is_not_busy() {
        assert_eq!(quiet().busy(), None);
        // One process runnable at one end only is a passing task, not a busy machine.
        let passing = MachineLoad {
            others_running_before: 3,
            ..quiet()
        };
        assert_eq!(passing.busy(), None);
        // A high load average alone is this run's own work (its workers are in it).
        let own = MachineLoad {
            load1_before: 6.0,
            load1_after: 6.0,
            ..quiet()
        };
        assert_eq!(own.busy(), None);
    }

    #[test]
    fn other_work_steal_or_a_held_run_queue_make_it_busy() {
        let hogs = MachineLoad {
            other_cpu_share: Some(0.67),
            ..quiet()
        };
        assert_eq!(
            hogs.busy().as_deref(),
            Some("other processes used 67 % of the CPUs")
        );
        let stolen = MachineLoad {
            steal_share: Some(0.2),
            ..quiet()
        };
        assert!(stolen.busy().unwrap().contains("steal"));
        // A sample too short for a share: the run queue at both ends decides.
        let queued = MachineLoad {
            other_cpu_share: None,
            others_running_before: 3,
            others_running_after: 2,
            ..quiet()
        };
        assert!(queued.busy().unwrap().contains("held 2 of 2 CPUs"));
        let more = MachineLoad { cpus: 8, ..queued };
        assert_eq!(more.busy(), None);
        // One other runnable process on two CPUs, at both ends of a short sample: a passing
        // task, not a busy machine.
        let passing = MachineLoad {
            others_running_before: 1,
            others_running_after: 1,
            ..queued
        };
        assert_eq!(passing.busy(), None);
    }
}
