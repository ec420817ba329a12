//! Turns a suite and the command-line overrides into a plan.

use crate::catalog::WorkerKind;
use crate::cli::RunArgs;
use crate::datasets::DatasetSpec;
use crate::plan::{Competitor, Network, Plan, Stopping, StorageChoice, Suite};
use crate::results::RunSettings;
use crate::run::catalog;
use crate::Error;
use formatbench_protocol::{Op, ALL_OPS, AS_GIVEN, DELTA_OPS, MATRIX_OPS, STORE_OPS};
use std::time::Duration;

mod datasets;
use datasets::{datasets, given_formats, user_region};

/// One balanced block (2n rounds for n competitors) unless asked for more.
const DEFAULT_BLOCKS: u32 = 1;
const DEFAULT_WARMUP: u32 = 1;

fn is_all(list: &[String]) -> bool {
    list.iter().any(|s| s == "all")
}

fn competitors(
    suite: Option<&Suite>,
    args: &RunArgs,
    given: &[&str],
    executor_counts: &[u32],
) -> Result<Vec<Competitor>, Error> {
    let wanted = args
        .backends
        .clone()
        .or_else(|| suite.map(|s| s.backends.clone()))
        .unwrap_or_else(|| vec!["all".into()]);
    // The peers are described (an interpreter started) only when the plan may use one.
    let native = crate::run::catalog_with(false);
    let needs_peers = wanted.iter().any(|w| {
        !matches!(w.as_str(), "native" | "builtin" | "heavy")
            && !native.iter().any(|b| b.name == *w)
    });
    let known = if needs_peers { catalog() } else { native };
    // Groups: "all" (native and peers), "native" (built in and heavy workers), "builtin" (the
    // light backends inside this binary), "heavy" (the workers on other Arrow majors) and
    // "peers" (py-*, r-*, and the ext-* of workers outside the tree, `--worker`).
    let mut names: Vec<String> = Vec::new();
    for w in &wanted {
        let group: Vec<String> = known
            .iter()
            .filter(|b| !b.hidden)
            .filter(|b| match w.as_str() {
                "all" => true,
                "native" => !b.worker.is_peer(),
                "builtin" => b.worker == WorkerKind::Arrow,
                "heavy" => b.worker.is_heavy(),
                "peers" => b.worker.is_peer(),
                _ => false,
            })
            .map(|b| b.name.clone())
            .collect();
        let group = if group.is_empty()
            && !matches!(w.as_str(), "all" | "native" | "builtin" | "heavy" | "peers")
        {
            vec![w.clone()]
        } else {
            group
        };
        for name in group {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    let profiles = args
        .profiles
        .clone()
        .or_else(|| suite.map(|s| s.profiles.clone()))
        .unwrap_or_else(|| vec!["all".into()]);
    let wanted_layouts = args
        .layouts
        .clone()
        .or_else(|| suite.map(|s| s.layouts.clone()))
        .unwrap_or_else(|| vec!["wide".into()]);
    // The suite's exclusions hold while the suite chooses the competitors.
    let excluded: &[String] = match suite {
        Some(s) if args.backends.is_none() && args.profiles.is_none() => &s.exclude,
        _ => &[],
    };
    let mut out = Vec::new();
    for name in names {
        let info = known.iter().find(|b| b.name == name).ok_or_else(|| {
            if let Some(reason) = crate::peers::missing_worker(&name) {
                return Error::Input(format!("backend '{name}' is unavailable: {reason}"));
            }
            let listed: Vec<&str> = known
                .iter()
                .filter(|b| !b.hidden)
                .map(|b| b.name.as_str())
                .collect();
            Error::Input(format!(
                "unknown backend '{name}' (known: {})",
                listed.join(", ")
            ))
        })?;
        let targets: Vec<&String> = match &args.targets {
            None => info.targets.iter().take(1).collect(),
            Some(wanted) if is_all(wanted) => info.targets.iter().collect(),
            Some(wanted) => info.targets.iter().filter(|t| wanted.contains(t)).collect(),
        };
        let layouts: Vec<&String> = info
            .layouts
            .iter()
            .map(|(name, _)| name)
            .filter(|name| is_all(&wanted_layouts) || wanted_layouts.contains(name))
            .collect();
        // The user's file itself, read as it is: its own profile, on the wide layout it has.
        let as_given = info
            .given
            .as_ref()
            .filter(|g| given.contains(&g.format.as_str()))
            .map(|_| AS_GIVEN.to_string());
        let layouts_of = |profile: &String| -> Vec<&String> {
            if *profile == AS_GIVEN {
                layouts.iter().copied().filter(|l| *l == "wide").collect()
            } else {
                layouts.clone()
            }
        };
        for profile in info.profiles.iter().chain(as_given.as_ref()) {
            if excluded.contains(&format!("{}/{profile}", info.name)) {
                continue;
            }
            if is_all(&profiles) || profiles.contains(profile) {
                let layouts = layouts_of(profile);
                // A cluster peer is a competitor at each executor count.
                let executors: Vec<Option<u32>> = if info.executors {
                    executor_counts.iter().copied().map(Some).collect()
                } else {
                    vec![None]
                };
                for layout in &layouts {
                    for target in &targets {
                        for &executors in &executors {
                            out.push(Competitor {
                                backend: info.name.clone(),
                                profile: profile.clone(),
                                layout: layout.to_string(),
                                target: target.to_string(),
                                row_group_rows: None,
                                parquet_files: None,
                                row_group_bytes: None,
                                sort_by: None,
                                executors,
                            });
                        }
                    }
                }
            }
        }
    }
    if out.is_empty() {
        return Err(Error::Input(
            "no backend, profile, layout and target selected".into(),
        ));
    }
    // The row-group sweep's re-written files, each a competitor beside the default one.
    let quick = suite.filter(|_| args.quick).map(|s| &s.quick);
    // The command line's, else the suite's quick run's under --quick, else the suite's.
    let chosen = |arg: &Option<Vec<u64>>, in_quick: Option<&Vec<u64>>, in_suite| -> Vec<u64> {
        arg.as_ref()
            .or(in_quick)
            .or(in_suite)
            .cloned()
            .unwrap_or_default()
    };
    // A size on the command line, in rows or bytes, replaces the suite's sizes.
    let bytes = chosen(
        &args
            .row_group_bytes
            .clone()
            .or_else(|| args.row_group_rows.as_ref().map(|_| Vec::new())),
        quick.and_then(|q| q.row_group_bytes.as_ref()),
        suite.and_then(|s| s.row_group_bytes.as_ref()),
    );
    let files = chosen(
        &args.parquet_files,
        quick.and_then(|q| q.parquet_files.as_ref()),
        suite.and_then(|s| s.parquet_files.as_ref()),
    );
    let axes = crate::plan::sweep::SweepAxes {
        row_group_rows: args.row_group_rows.as_deref().unwrap_or_default(),
        row_group_bytes: &bytes,
        parquet_files: &files,
        sort_by: args.sort_by.as_deref(),
    };
    let reads_file_sets = |name: &str| crate::run::find(name).map(|info| info.file_sets);
    // A suite's shared files are for the readers among its backends: a narrower --backends
    // without any leaves them out instead of failing.
    let from_suite = args.row_group_rows.is_none()
        && args.row_group_bytes.is_none()
        && args.parquet_files.is_none()
        && args.sort_by.is_none();
    let readers = out
        .iter()
        .any(|c| reads_file_sets(&c.backend) == Some(true));
    if !from_suite || readers {
        out.extend(crate::plan::sweep::sweep_points(
            axes,
            &out,
            reads_file_sets,
        )?);
    }
    Ok(out)
}

fn ops(suite: Option<&Suite>, args: &RunArgs) -> Result<Vec<Op>, Error> {
    let wanted = args
        .ops
        .clone()
        .or_else(|| suite.map(|s| s.ops.clone()))
        .unwrap_or_else(|| vec!["all".into()]);
    let mut ops: Vec<Op> = Vec::new();
    for name in &wanted {
        match name.as_str() {
            "all" => ops.extend(ALL_OPS),
            "features" => ops.extend(MATRIX_OPS),
            "delta" => ops.extend(DELTA_OPS),
            "store" => ops.extend(STORE_OPS),
            other => ops.push(other.parse::<Op>().map_err(Error::Input)?),
        }
    }
    ops.sort();
    ops.dedup();
    Ok(ops)
}

pub fn plan(suite: Option<&Suite>, args: &RunArgs) -> Result<Plan, Error> {
    if let Some(reference) = &args.reference {
        let known = reference.split_once('/').is_some_and(|(b, p)| {
            crate::run::find(b).is_some_and(|i| i.profiles.iter().any(|x| x == p))
        });
        if !known {
            return Err(Error::Input(format!(
                "--reference {reference}: give BACKEND/PROFILE of a known backend, e.g. parquet/default"
            )));
        }
    }
    if !(args.min_sample_ms >= 0.0 && args.min_sample_ms.is_finite()) {
        return Err(Error::Input(format!(
            "--min-sample-ms {}: give a number ≥ 0",
            args.min_sample_ms
        )));
    }
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err(Error::Input(format!(
            "--timeout {}: give a positive number of seconds",
            args.timeout
        )));
    }
    let quick_rounds = suite.and_then(|s| s.quick.rounds).filter(|_| args.quick);
    let blocks = args
        .rounds
        .or(quick_rounds)
        .or_else(|| suite.and_then(|s| s.rounds))
        .unwrap_or(DEFAULT_BLOCKS);
    // A suite's own 0 is refused where the file is read, at its line (plan/suite/check.rs).
    if blocks == 0 || args.samples == Some(0) {
        return Err(Error::Input(
            "--rounds 0 or --samples 0: at least one measured sample per cell is needed".into(),
        ));
    }
    let stopping = stopping(suite, args)?;
    let datasets = datasets(suite, args)?;
    let competitors = competitors(
        suite,
        args,
        &given_formats(&datasets),
        &executor_counts(suite, args),
    )?;
    Ok(Plan {
        suite: suite.map_or_else(|| "(command line)".into(), |s| s.name.clone()),
        datasets,
        competitors,
        ops: ops(suite, args)?,
        blocks,
        max_rounds: args.samples.or_else(|| {
            suite.and_then(|s| {
                if args.quick {
                    s.quick.samples.or(s.samples)
                } else {
                    s.samples
                }
            })
        }),
        caches: crate::plan::cache_states(args.cache),
        min_sample_s: args.min_sample_ms / 1000.0,
        warmup: args
            .warmup
            .or_else(|| suite.and_then(|s| s.warmup))
            .unwrap_or(DEFAULT_WARMUP),
        threads: args.threads,
        executors: executor_counts(suite, args),
        executor_memory: args
            .executor_memory
            .as_deref()
            .map(|text| size_at_least_16_mib("--executor-memory", text))
            .transpose()?,
        cluster: args.cluster.clone(),
        timeout: Duration::from_secs_f64(args.timeout),
        memory_limit: args.memory_limit.as_deref().map(memory_limit).transpose()?,
        seed: args.seed,
        files: args
            .files
            .or_else(|| suite.and_then(|s| s.files))
            .unwrap_or(crate::plan::DEFAULT_FILES),
        session_queries: args
            .queries
            .or_else(|| suite.and_then(|s| s.queries))
            .unwrap_or(crate::plan::DEFAULT_SESSION_QUERIES),
        stopping,
        storage: storage(suite, args)?,
        verify_only: false,
    })
}

/// The network profiles a run covers: `--network`, else the suite's, a comma-separated list
/// (`lan,region,internet`: one run each, reported together), else `local`.
pub fn networks(suite: Option<&Suite>, args: &RunArgs) -> Result<Vec<Network>, Error> {
    if let Some(networks) = &args.network {
        return Ok(networks.clone());
    }
    let Some(text) = suite.and_then(|s| s.network.as_deref()) else {
        return Ok(vec![Network::Local]);
    };
    text.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| n.parse().map_err(|e| Error::Input(format!("network: {e}"))))
        .collect()
}

/// `--storage` and `--network` (its first profile), else the suite's, else local files.
fn storage(suite: Option<&Suite>, args: &RunArgs) -> Result<crate::plan::Storage, Error> {
    let network = networks(suite, args)?
        .first()
        .copied()
        .unwrap_or(Network::Local);
    let storage = match (&args.storage, suite.and_then(|s| s.storage.as_deref())) {
        (Some(choice), _) => choice.clone(),
        (None, Some(text)) => text
            .parse()
            .map_err(|e| Error::Input(format!("storage = {text:?}: {e}")))?,
        (None, None) => StorageChoice::Local,
    };
    match storage {
        StorageChoice::Local if network == Network::Local => Ok(crate::plan::Storage::Local),
        StorageChoice::Local => Err(Error::Input(format!(
            "--network {} shapes the way to object storage: add --storage s3",
            network.name()
        ))),
        StorageChoice::Served => Ok(crate::plan::Storage::S3 { network }),
        StorageChoice::Own(url) => {
            let endpoint = args.endpoint.as_deref().ok_or_else(|| {
                Error::Input(format!(
                    "--storage {url}: add --endpoint URL (the store's S3 API, http://HOST:PORT)"
                ))
            })?;
            if network != Network::Local {
                return Err(Error::Input(format!(
                    "--network {}: a store of your own is reached as it is; drop --network",
                    network.name()
                )));
            }
            crate::plan::UserStore::parse(&url, endpoint, &user_region())
                .map(crate::plan::Storage::Endpoint)
                .map_err(|e| Error::Input(format!("--storage: {e}")))
        }
    }
}

/// `--precision`: a percentage below 100 %, or `off` (`None`).
pub(super) fn precision(text: &str) -> Result<Option<f64>, Error> {
    crate::units::parse_precision(text).ok_or_else(|| {
        Error::Input(format!(
            "--precision {text}: give a percentage below 100% such as 5%, or off"
        ))
    })
}

/// Adaptive stopping, when asked for (`--precision`, `--budget`, or the suite's): a fixed
/// design (`--rounds`, `--samples`, or a suite's rounds or samples) runs whole unless one of
/// the two is given on the command line.
fn stopping(suite: Option<&Suite>, args: &RunArgs) -> Result<Option<Stopping>, Error> {
    let fixed_here = args.rounds.is_some() || args.samples.is_some();
    let fixed_by_suite = suite.is_some_and(|s| {
        s.rounds.is_some() || s.samples.is_some() || (args.quick && s.quick.rounds.is_some())
    });
    let asked_here = args.precision.is_some() || args.budget.is_some();
    let (precision, budget) = if asked_here {
        (args.precision.clone(), args.budget.clone())
    } else if fixed_here || fixed_by_suite {
        (None, None)
    } else {
        (
            suite.and_then(|s| s.precision.clone()),
            suite.and_then(|s| s.budget.clone()),
        )
    };
    if precision.is_none() && budget.is_none() {
        return Ok(None);
    }
    let budget_s = budget
        .map(|text| {
            crate::units::parse_duration(&text).ok_or_else(|| {
                Error::Input(format!(
                    "--budget {text}: give a duration such as 60s, 2m or 1h"
                ))
            })
        })
        .transpose()?;
    let precision = match precision {
        None => Some(crate::plan::DEFAULT_PRECISION),
        Some(text) => self::precision(&text)?,
    };
    Ok(match (precision, budget_s) {
        (None, None) => None,
        // `--precision off --budget 60s`: the budget alone stops a group.
        (precision, budget_s) => Some(Stopping {
            precision: precision.unwrap_or(0.0),
            budget_s,
        }),
    })
}

/// `--memory-limit`: a size (`crate::units::parse_bytes`) of at least 16 MiB.
fn memory_limit(text: &str) -> Result<u64, Error> {
    size_at_least_16_mib("--memory-limit", text)
}

/// A memory cap given as `flag`: a size of at least 16 MiB.
fn size_at_least_16_mib(flag: &str, text: &str) -> Result<u64, Error> {
    match crate::units::parse_bytes(text) {
        // Below a few MiB no worker can even start; a limit that small is a typo.
        Some(bytes) if bytes >= 16 << 20 => Ok(bytes),
        Some(_) => Err(Error::Input(format!(
            "{flag} {text}: give at least 16MiB (no worker starts in less)"
        ))),
        None => Err(Error::Input(format!(
            "{flag} {text}: give a size such as 4GiB, 512MiB or a number of bytes"
        ))),
    }
}

/// `--executors`, else the suite's (its quick run's under `--quick`), else one; each count
/// once, in the order given.
fn executor_counts(suite: Option<&Suite>, args: &RunArgs) -> Vec<u32> {
    let quick = suite
        .filter(|_| args.quick)
        .and_then(|s| s.quick.executors.clone());
    let counts = args
        .executors
        .clone()
        .or(quick)
        .or_else(|| suite.and_then(|s| s.executors.clone()))
        .unwrap_or_else(|| vec![crate::plan::DEFAULT_EXECUTORS]);
    counts.into_iter().fold(Vec::new(), |mut kept, n| {
        if !kept.contains(&n) {
            kept.push(n);
        }
        kept
    })
}

/// The settings recorded in the environment block.
pub fn settings(plan: &Plan, args: &RunArgs) -> RunSettings {
    RunSettings {
        suite: plan.suite.clone(),
        quick: args.quick,
        blocks: plan.blocks,
        max_rounds: plan.max_rounds,
        cache: Some(args.cache),
        min_sample_s: plan.min_sample_s,
        warmup: plan.warmup,
        precision: plan.stopping.map(|s| s.precision),
        budget_s: plan.stopping.and_then(|s| s.budget_s),
        threads: plan.threads,
        timeout_s: plan.timeout.as_secs_f64(),
        memory_limit_bytes: plan.memory_limit,
        executor_memory_bytes: plan.executor_memory,
        cluster: plan.cluster.clone(),
        seed: plan.seed,
        storage: plan.storage.key().into(),
        network: plan.storage.network_key().into(),
        egress_price_per_gb: Some(args.egress_price),
        session_queries: Some(plan.session_queries),
        prefer: args.prefer,
        call: args.call,
        reference: args.reference.clone(),
        datasets: plan.datasets.iter().map(DatasetSpec::name).collect(),
        write_fsync: false,
        other: Default::default(),
    }
}

/// The plan an interrupted run was started with.
pub fn stored_plan(run_dir: &std::path::Path) -> Result<Plan, Error> {
    let path = run_dir.join(crate::run::PLAN_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::Input(format!(
            "cannot resume: cannot read {}: {e}",
            path.display()
        ))
    })?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Input(format!(
            "cannot resume: {} is not a plan: {e}",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::memory_limit;

    #[test]
    fn memory_limits_are_sizes_of_at_least_16_mib() {
        assert_eq!(memory_limit("512MiB").ok(), Some(512 << 20));
        for (bad, says) in [("lots", "give a size"), ("1KiB", "at least 16MiB")] {
            let refused = memory_limit(bad).map_err(|e| e.to_string());
            assert!(
                refused.as_ref().is_err_and(|e| e.contains(says)),
                "{bad:?}: {refused:?}"
            );
        }
    }
}
