//! What differs between the environments of two runs: the usual cause of a change, so every
//! export puts it first. Only entries that differ are listed; the ones that always differ
//! (run ids, the clock's measured resolution) are left out.

use super::model::Difference;
use crate::stats::{LoadSummary, RunSummary};
use crate::units::{bytes, DASH};

/// How busy the machine was, coarsely enough that two quiet runs agree: `quiet`, or how
/// many samples were taken while it was busy and the highest load average.
fn machine_state(load: &LoadSummary) -> Option<String> {
    if load.samples == 0 {
        return None;
    }
    let peak = load
        .load1
        .map(|(_, hi)| format!("; load average up to {hi:.1} on {} CPUs", load.cpus))
        .unwrap_or_default();
    Some(match load.busy {
        0 => "quiet".to_string(),
        _ => format!("{}{peak}", load.short()?),
    })
}

/// An environment as (entry, value) pairs, most telling first: versions, the build, the
/// machine and how busy it was, the kernel's memory settings, the run's settings.
fn entries(summary: &RunSummary) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(env) = &summary.environment {
        out.extend(
            env.versions
                .iter()
                .map(|(k, v)| (format!("version of {k}"), v.clone())),
        );
        let commit = match (&env.git_commit, env.git_dirty) {
            (Some(c), Some(true)) => format!("{} (dirty)", &c[..c.len().min(12)]),
            (Some(c), _) => c[..c.len().min(12)].to_string(),
            (None, _) => "unknown".to_string(),
        };
        out.extend([
            ("commit".to_string(), commit),
            ("formatbench".to_string(), env.formatbench_version.clone()),
            (
                "worker build".to_string(),
                env.worker_build.clone().unwrap_or_else(|| "unknown".into()),
            ),
            ("CPU".to_string(), env.cpu_model.clone()),
            ("cores".to_string(), env.cores.to_string()),
            ("memory".to_string(), bytes(env.memory_bytes)),
            ("kernel".to_string(), env.kernel.clone()),
            ("OS".to_string(), env.os.clone()),
        ]);
        out.extend(machine_state(&summary.load).map(|state| ("machine".to_string(), state)));
        out.extend(
            env.memory
                .iter()
                .map(|(k, v)| (format!("memory setting {k}"), v.clone())),
        );
        out.extend(
            env.settings
                .entries()
                .into_iter()
                .map(|(k, v)| (format!("setting {k}"), v)),
        );
    }
    out.extend(summary.datasets.iter().map(|d| {
        (
            format!("dataset {}", d.dataset),
            d.dataset_fingerprint.clone(),
        )
    }));
    out
}

/// Every entry whose value differs, in BASE's order, then entries only NEW has.
pub fn differences(base: &RunSummary, new: &RunSummary) -> Vec<Difference> {
    let (b, n) = (entries(base), entries(new));
    let value = |list: &[(String, String)], key: &str| {
        list.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    };
    let mut keys: Vec<&String> = b.iter().map(|(k, _)| k).collect();
    for (k, _) in &n {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (value(&b, k), value(&n, k));
            (x != y).then(|| Difference {
                what: k.clone(),
                base: x.unwrap_or_else(|| DASH.to_string()),
                new: y.unwrap_or_else(|| DASH.to_string()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::EnvironmentRecord;
    use std::collections::BTreeMap;

    fn run(env: &EnvironmentRecord) -> RunSummary {
        RunSummary {
            environment: Some(env.clone()),
            ..RunSummary::default()
        }
    }

    fn env(arrow: &str, kernel: &str, commit: &str) -> EnvironmentRecord {
        EnvironmentRecord {
            run_id: format!("run-{arrow}"),
            formatbench_version: "0.1.0".into(),
            git_commit: Some(commit.into()),
            git_dirty: Some(false),
            cpu_model: "AMD EPYC".into(),
            cores: 2,
            memory_bytes: 1 << 30,
            kernel: kernel.into(),
            os: "Debian".into(),
            versions: BTreeMap::from([("arrow".into(), arrow.into())]),
            clock_resolution_s: Some(3e-8),
            worker_build: Some("xxh3:1".into()),
            settings: BTreeMap::from([("seed".to_string(), "42".to_string())]).into(),
            memory: BTreeMap::from([("transparent_hugepage".into(), "madvise".into())]),
            formats: BTreeMap::new(),
        }
    }

    #[test]
    fn only_what_differs_is_listed_versions_first() {
        let base = env("60.1.0", "linux 6.1", "aaaa");
        let mut new = env("61.0.0", "linux 6.8", "bbbb");
        new.clock_resolution_s = Some(4e-8);
        new.memory
            .insert("transparent_hugepage".into(), "always".into());
        let got: Vec<String> = differences(&run(&base), &run(&new))
            .iter()
            .map(Difference::text)
            .collect();
        assert_eq!(
            got,
            [
                "version of arrow: 60.1.0 → 61.0.0",
                "commit: aaaa → bbbb",
                "kernel: linux 6.1 → linux 6.8",
                "memory setting transparent_hugepage: madvise → always",
            ]
        );
        assert!(differences(&run(&base), &run(&base)).is_empty());
    }

    #[test]
    fn an_entry_of_one_side_only_shows_a_dash() {
        let base = env("60.1.0", "k", "c");
        let mut new = base.clone();
        new.versions.insert("pyarrow".into(), "17.0.0".into());
        let got = differences(&run(&base), &run(&new));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].text(), "version of pyarrow: — → 17.0.0");
    }

    fn loaded(busy: usize, peak: f64) -> RunSummary {
        let mut summary = run(&env("60.1.0", "k", "c"));
        summary.load = LoadSummary {
            samples: 40,
            busy,
            cpus: 2,
            load1: Some((0.1, peak)),
            ..LoadSummary::default()
        };
        summary
    }

    #[test]
    fn a_busy_machine_is_a_difference_two_quiet_ones_are_not() {
        assert!(differences(&loaded(0, 0.4), &loaded(0, 0.9)).is_empty());
        let got: Vec<String> = differences(&loaded(0, 0.4), &loaded(38, 6.2))
            .iter()
            .map(Difference::text)
            .collect();
        assert_eq!(
            got,
            ["machine: quiet → busy in 38 of 40 samples; load average up to 6.2 on 2 CPUs"]
        );
    }
}
