//! The timing protocol (docs/protocol.md §4, §5) held against one measured sample: calls,
//! first and warm times, the 50 ms rule, start-up outside the timer, and the parts a worker
//! timed inside its calls.

use crate::results::SampleRecord;

/// A sample's untimed part below this share of the worker's start-up means the timer took
/// start-up in: a correct worker leaves all of it (and the source's load) outside.
const UNTIMED_SHARE_OF_START: f64 = 0.5;

/// ... by at least this much: a start-up of a few milliseconds (a native program) is within
/// the jitter of starting a process, and an error that small moves no ranking.
const START_UP_MARGIN_S: f64 = 0.010;

/// The 50 ms rule, less the clock's and the last call's granularity.
const SHARE_OF_MIN_SAMPLE: f64 = 0.9;

/// A session's parts, which follow one another inside a call: together no longer than it.
const DISJOINT_PHASES: [&str; 3] = ["init", "plan", "execute"];

/// The parts a worker timed inside the operation (`phases`, `first_call_phases`), held to the
/// calls they are parts of: each within its call, a session's parts within it together.
/// `load` (a write's, timed before the operation) is not a part of it.
pub(super) fn phase_problems(label: &str, sample: &SampleRecord) -> Vec<String> {
    // A part measured by the same clock as its call, around less work: the margin is the
    // clock's and the rounding's.
    let within = |part: f64, call: f64| part <= call * 1.01 + 1e-4;
    let mut problems = Vec::new();
    let per_call = match (sample.calls, sample.first_call_s, sample.warm_call_s) {
        // A worker that did not split its parts by call (`first_call_phases` is optional): the
        // runner spread the first call's parts over the later calls, so they are held to the
        // time of all the calls over the later ones.
        (Some(calls), Some(first), Some(warm))
            if calls > 1 && sample.first_call_phases.is_empty() =>
        {
            let later = (calls - 1) as f64;
            Some((first + warm * later) / later)
        }
        _ => sample.warm_call_s.or(sample.wall_s),
    };
    for (phases, call, which) in [
        (&sample.phases, per_call, "a call"),
        (
            &sample.first_call_phases,
            sample.first_call_s,
            "its first call",
        ),
    ] {
        let Some(call) = call else { continue };
        let parts = phases.iter().filter(|(name, _)| name.as_str() != "load");
        for (name, seconds) in parts {
            if !within(*seconds, call) {
                problems.push(format!(
                    "{label}: its phase '{name}' takes {} of {which}'s {}: a part timed \
                     outside the operation",
                    crate::units::duration(*seconds),
                    crate::units::duration(call)
                ));
            }
        }
        let disjoint: f64 = DISJOINT_PHASES
            .iter()
            .filter_map(|name| phases.get(*name))
            .sum();
        if !within(disjoint, call) {
            problems.push(format!(
                "{label}: its phases {} add up to {}, more than {which}'s {}",
                DISJOINT_PHASES.join(", "),
                crate::units::duration(disjoint),
                crate::units::duration(call)
            ));
        }
    }
    problems
}

/// The timing protocol, held against one measured sample (which asks for at least two calls
/// lasting at least `DEFAULT_MIN_SAMPLE_S` together, at most 1,000).
pub(super) fn timing_problems(
    label: &str,
    sample: &SampleRecord,
    start_s: Option<f64>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let (Some(per_call), Some(calls)) = (sample.wall_s, sample.calls) else {
        problems.push(format!("{label}: reports no time or no call count"));
        return problems;
    };
    let timed = per_call * calls as f64;
    let floor = crate::plan::DEFAULT_MIN_SAMPLE_S;
    let (min_calls, max_calls) = crate::plan::MEASURED_CALLS;
    if calls < min_calls {
        problems.push(format!(
            "{label}: made {calls} call(s); a measured sample makes at least {min_calls} (the \
             first, then warm ones)"
        ));
    } else if sample.warm_call_s.is_none() || sample.first_call_s.is_none() {
        problems.push(format!("{label}: reports no first-call or warm-call time"));
    }
    if calls < max_calls && timed < SHARE_OF_MIN_SAMPLE * floor {
        problems.push(format!(
            "{label}: stopped after {calls} calls, {} in all: short operations repeat until they last {} together",
            crate::units::duration(timed),
            crate::units::duration(floor)
        ));
    }
    if let (Some(start), Some(process)) = (start_s, sample.process_wall_s) {
        let untimed = process - timed;
        if untimed < UNTIMED_SHARE_OF_START * start && start - untimed > START_UP_MARGIN_S {
            problems.push(format!(
                "{label}: its calls take {} of its process's {}, leaving {} untimed where starting \
                 the worker alone takes {}: the timer includes start-up",
                crate::units::duration(timed),
                crate::units::duration(process),
                crate::units::duration(untimed.max(0.0)),
                crate::units::duration(start)
            ));
        }
    }
    problems
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::results::{CellKey, SampleStatus};

    fn sample(
        warm: f64,
        first: f64,
        phases: &[(&str, f64)],
        first_phases: &[(&str, f64)],
    ) -> SampleRecord {
        let mut s = SampleRecord::bare(
            "r",
            CellKey::example("ext-x"),
            Some(1),
            SampleStatus::Ok,
            None,
        );
        s.wall_s = Some(warm);
        s.warm_call_s = Some(warm);
        s.first_call_s = Some(first);
        s.phases = phases.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        s.first_call_phases = first_phases
            .iter()
            .map(|(n, v)| (n.to_string(), *v))
            .collect();
        s
    }

    #[test]
    fn phases_inside_their_calls_pass_and_ones_outside_are_named() {
        let right = sample(
            0.010,
            0.030,
            &[
                ("first_batch", 0.004),
                ("init", 0.002),
                ("plan", 0.003),
                ("execute", 0.005),
                ("load", 0.5),
            ],
            &[("first_batch", 0.020)],
        );
        assert!(phase_problems("ext-x read", &right).is_empty());
        let outside = sample(
            0.010,
            0.030,
            &[("first_batch", 0.015)],
            &[("first_batch", 0.031)],
        );
        let said = phase_problems("ext-x read", &outside);
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(
            said[0].contains("'first_batch' takes 15.0 ms of a call's 10.0 ms"),
            "{}",
            said[0]
        );
        assert!(
            said[1].contains("of its first call's 30.0 ms"),
            "{}",
            said[1]
        );
        // Parts not split by call: the first call's part is spread over the later calls.
        let mut unsplit = sample(0.010, 0.030, &[("first_batch", 0.012)], &[]);
        unsplit.calls = Some(3);
        assert!(phase_problems("ext-x read", &unsplit).is_empty());
        unsplit.phases.insert("first_batch".into(), 0.030);
        assert_eq!(phase_problems("ext-x read", &unsplit).len(), 1);
        let overlapping = sample(
            0.010,
            0.010,
            &[("init", 0.004), ("plan", 0.004), ("execute", 0.004)],
            &[],
        );
        let said = phase_problems("ext-x session", &overlapping);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("add up to 12.0 ms, more than a call's 10.0 ms"),
            "{}",
            said[0]
        );
    }
}
