//! Which call of a sample a time is. A sample calls its operation at least twice in one worker
//! process: the first call is a script's view (page faults, pool start-up and lazy
//! initialisation included), the later ones a service's (same process, warm). Both are
//! recorded; `--call` chooses which one ranks.

use crate::results::{CallMode, SampleRecord};

impl CallMode {
    /// The wall seconds per call a sample ranks by, and whether it is the figure asked for.
    /// A cold read's only call is its first (a second would find the cache warm), and a
    /// record from before warm figures were kept has only its mean over every call.
    pub fn wall_of(self, s: &SampleRecord) -> Option<(f64, bool)> {
        match self {
            CallMode::First => Some(match s.first_call_s {
                Some(first) => (first, true),
                None => (s.wall_s?, s.calls == Some(1)),
            }),
            CallMode::Warm => Some(match s.warm_call_s {
                Some(warm) => (warm, true),
                None => (s.wall_s?, s.cell.cache == "cold"),
            }),
        }
    }

    /// The parts timed inside the operation, for the same call as [`CallMode::wall_of`].
    pub fn phases_of(self, s: &SampleRecord) -> &std::collections::BTreeMap<String, f64> {
        match self {
            CallMode::First if !s.first_call_phases.is_empty() => &s.first_call_phases,
            _ => &s.phases,
        }
    }

    /// CPU seconds (user + system) per call, for the same call as [`CallMode::wall_of`].
    pub fn cpu_of(self, s: &SampleRecord) -> Option<f64> {
        let per_call = || Some(s.cpu_user_s? + s.cpu_sys_s?);
        match self {
            CallMode::First => s.first_call_cpu_s.or_else(per_call),
            CallMode::Warm => s.warm_call_cpu_s.or_else(per_call),
        }
    }

    /// The object store's count per call, for the same call as [`CallMode::wall_of`], and
    /// whether it is that call's own: a sample whose worker did not say when its first call
    /// ended has only the mean over all its calls.
    pub fn traffic_of(
        self,
        s: &SampleRecord,
    ) -> Option<(&formatbench_protocol::ObjectTraffic, bool)> {
        let own = match self {
            CallMode::First => s.first_call_object_traffic.as_ref(),
            CallMode::Warm => s.warm_call_object_traffic.as_ref(),
        };
        match own {
            Some(traffic) => Some((traffic, true)),
            None => self
                .wall_of(s)
                .and_then(|(_, own)| Some((s.object_traffic.as_ref()?, own))),
        }
    }
}
