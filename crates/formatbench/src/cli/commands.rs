//! What each subcommand does, in terms of the library's layers.

mod calibrate;
mod calibrate_coverage;
mod calibrate_network;
mod compare;
mod fidelity;
mod history;
mod nothing_measured;
mod pool;
mod repair;
mod rerank;
mod resolve;
mod selftest_plan;
mod workers;

pub use resolve::plan as plan_for;

use super::{Cli, Command, PeersAction, RunArgs};
use crate::datasets::DATASET_KINDS;
use crate::plan::{load_suite, Suite, BUILTIN_SUITES};
use crate::run::{catalog, execute_plan, install_interrupt_handler, RunOptions};
use crate::Error;

pub fn dispatch(cli: Cli) -> Result<i32, Error> {
    use crate::progress::{set_verbosity, Verbosity};
    set_verbosity(if cli.quiet {
        Verbosity::Quiet
    } else if cli.verbose {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    });
    // `workers` manages the registered manifests itself, and checks one apart from them.
    if !matches!(cli.command, Command::Workers { .. }) {
        crate::catalog::external::register(&cli.workers)?;
    }
    match cli.command {
        Command::Run(args) => {
            let suite = if args.dataset.is_some() || args.input.is_some() {
                None
            } else {
                Some(load_suite("default")?)
            };
            run(suite, &args)
        }
        Command::Suite { name, args } => {
            let suite = load_suite(&name)?;
            run(Some(suite), &args)
        }
        Command::Fidelity(args) => fidelity::fidelity(&args),
        Command::Datasets => {
            print_datasets();
            Ok(0)
        }
        Command::Backends => {
            print_backends();
            Ok(0)
        }
        Command::Compare(args) => compare::compare(&args),
        Command::Repair { run_dir } => repair::repair_run(&run_dir),
        Command::Workers { action } => workers::workers(action),
        Command::Peers { action } => match action {
            PeersAction::Install { python } => {
                crate::peers::install(python.as_deref())?;
                print_backends();
                Ok(0)
            }
            PeersAction::Path => {
                println!("{}", crate::peers::peers_dir().display());
                Ok(0)
            }
        },
        Command::Calibrate {
            network: Some(profiles),
            out,
            ..
        } => calibrate_network::calibrate(&profiles, &out),
        Command::Calibrate {
            rounds,
            precision,
            out,
            network: None,
        } => calibrate::calibrate(rounds, precision.as_deref(), &out),
        Command::History {
            dirs,
            out,
            threshold,
            call,
        } => history::history(&dirs, &out, &threshold, call),
        Command::Report {
            run_dirs,
            out,
            allow_dirty,
            call,
            prefer,
            reference,
            export_markdown,
        } => {
            let (mut records, _locks) = pool::pooled_records(&run_dirs, allow_dirty)?;
            rerank::rerank(&mut records, prefer, reference.as_deref())?;
            if !records
                .iter()
                .any(|r| matches!(r, crate::results::Record::Sample(_)))
            {
                let dirs: Vec<String> = run_dirs.iter().map(|d| d.display().to_string()).collect();
                return Err(Error::Input(format!(
                    "{}: no samples to report (the run stopped before measuring anything)",
                    dirs.join(", ")
                )));
            }
            let out = out
                .or_else(|| run_dirs.first().cloned())
                .unwrap_or_default();
            let summary = crate::report::write_all(&records, call, &out)?;
            if let Some(path) = &export_markdown {
                crate::report::export_markdown(&summary, path)?;
            }
            print!("{}", crate::report::terminal(&summary));
            crate::progress::say(&format!("reports written to {}", out.display()));
            Ok(0)
        }
    }
}

/// A run, or with several network profiles (`--network lan,region,internet`), one run per
/// profile, each with its own S3 server behind that network, then one report of them all.
fn run(suite: Option<Suite>, args: &RunArgs) -> Result<i32, Error> {
    // A bad name is refused before anything is measured, not after.
    if let Some(name) = &args.save_baseline {
        crate::compare::check_baseline_name(name)?;
    }
    // Every name is checked before the first run, so a typo does not end the command late.
    let networks = resolve::networks(suite.as_ref(), args)?;
    let names: Vec<&str> = networks.iter().map(|n| n.name()).collect();
    if networks.len() < 2 || args.resume.is_some() {
        let (code, run_dir) = run_one(suite.as_ref(), args)?;
        if let Some(name) = &args.save_baseline {
            compare::save_baseline(name, code, &run_dir, &args.out)?;
        }
        return Ok(code);
    }
    if args.save_baseline.is_some() {
        return Err(Error::Input(
            "--save-baseline names one run; with several networks, save each run's directory \
             by running one network at a time"
                .into(),
        ));
    }
    let mut run_dirs = Vec::new();
    let mut worst = 0;
    for network in &networks {
        crate::progress::say(&format!("network {}: a run of its own", network.name()));
        // The compact report is the networks' together, written once below.
        let args = RunArgs {
            network: Some(vec![*network]),
            export_markdown: None,
            ..args.clone()
        };
        let (code, run_dir) = match run_one(suite.as_ref(), &args) {
            Ok(ran) => ran,
            // A profile this machine cannot shape is left out; the others still run.
            Err(Error::Unavailable(why)) => {
                crate::progress::say(&format!("{why}; network {} left out", network.name()));
                continue;
            }
            Err(e) => return Err(e),
        };
        run_dirs.push(run_dir);
        worst = worst.max(code);
        if code == 130 {
            break;
        }
    }
    if run_dirs.is_empty() {
        return Err(Error::Unavailable(format!(
            "none of the networks {} could be set up here",
            names.join(", ")
        )));
    }
    let records = pool::records_of_this_build(&run_dirs)?;
    let mut out = run_dirs
        .first()
        .cloned()
        .unwrap_or_default()
        .into_os_string();
    out.push("-networks");
    let out = std::path::PathBuf::from(out);
    std::fs::create_dir_all(&out)?;
    let summary = crate::report::write_all(&records, None, &out)?;
    if let Some(path) = &args.export_markdown {
        crate::report::export_markdown(&summary, path)?;
    }
    print!("{}", crate::report::terminal(&summary));
    crate::progress::say(&format!(
        "the runs of networks {} reported together in {}",
        names.join(", "),
        out.display()
    ));
    Ok(worst)
}

/// How the runner runs `plan`, as `args` ask.
fn run_options(plan: &crate::plan::Plan, args: &RunArgs) -> RunOptions {
    RunOptions {
        out_dir: args.out.clone(),
        resume: args.resume.clone(),
        reuse: args.reuse,
        retry_failed: args.retry_failed,
        keep_artifacts: args.keep_artifacts,
        settings: resolve::settings(plan, args),
        s3_listen: args.s3_listen.clone(),
    }
}

fn run_one(suite: Option<&Suite>, args: &RunArgs) -> Result<(i32, std::path::PathBuf), Error> {
    let plan = match &args.resume {
        Some(dir) => resolve::stored_plan(dir)?,
        None => resolve::plan(suite, args)?,
    };
    // Before anything is written: a folder the run cannot write in, or a source that cannot
    // fit, stops here, leaving nothing.
    match &args.resume {
        Some(dir) => crate::plan::limits::check_writable("--resume", dir)?,
        None => crate::plan::limits::check_writable("--out", &args.out)?,
    }
    crate::plan::limits::check(&plan.datasets, &args.out, args.allow_large)?;
    install_interrupt_handler();
    let outcome = execute_plan(&plan, &run_options(&plan, args))?;
    // The run ends at its results file; the reports are written from it like `report` does.
    let records = crate::results::read_records(&outcome.results)?;
    let summary = crate::report::write_all(&records, None, &outcome.run_dir)?;
    if let Some(path) = &args.export_markdown {
        crate::report::export_markdown(&summary, path)?;
    }
    print!("{}", crate::report::terminal(&summary));
    crate::progress::say(&format!(
        "{} in {:.1} s; results, report.md and report.html in {}",
        if outcome.interrupted {
            "interrupted"
        } else {
            "finished"
        },
        outcome.wall_s,
        outcome.run_dir.display()
    ));
    // The runner's own high-water mark (its workers' are in the samples): it streams every
    // pass over a source or result, so this stays near a few batches at any data size.
    if let Some(peak) = formatbench_protocol::memory_snapshot().peak_bytes {
        crate::progress::say(&format!(
            "the runner's own peak memory: {}",
            crate::report::bytes(peak)
        ));
    }
    let code = if outcome.interrupted {
        130
    } else if let Some(why) = failed_cells(&summary) {
        crate::progress::fail(&why);
        1
    } else if let Some(why) = nothing_measured::nothing_measured(&summary) {
        crate::progress::fail(&why);
        2
    } else {
        0
    };
    Ok((code, outcome.run_dir))
}

/// Why a run whose cells failed exits 1, in a line even `--quiet` prints: how many failed
/// and the first of them with its reason, so that a CI log says more than an exit code.
fn failed_cells(summary: &crate::stats::RunSummary) -> Option<String> {
    let failed: Vec<&crate::stats::CellSummary> = summary
        .groups
        .iter()
        .flat_map(|g| &g.cells)
        .filter(|c| c.status == crate::results::SampleStatus::Failed)
        .collect();
    let first = failed.first()?;
    let k = &first.cell;
    Some(format!(
        "{} cell{} failed, first {} {} {} {} ({}, {}): {} (all under \"Not measured\" in report.md)",
        failed.len(),
        if failed.len() == 1 { "" } else { "s" },
        k.dataset,
        k.backend,
        k.shown_profile(),
        k.op,
        k.layout,
        k.target,
        first.reason.as_deref().unwrap_or("no reason recorded"),
    ))
}

fn print_datasets() {
    println!("Generators (formatbench run --dataset NAME):");
    for (kind, about) in DATASET_KINDS {
        println!("  {:<10} {about}", kind.name());
    }
    println!("\nBuilt-in suites (formatbench suite NAME):");
    for (name, _) in BUILTIN_SUITES {
        let about = crate::plan::builtin_suite(name)
            .and_then(Result::ok)
            .map(|s| s.description)
            .unwrap_or_default();
        println!("  {name:<13} {about}");
    }
    println!("\nYour own data: formatbench run --input FILE.(csv|parquet|arrow) [--index COLUMN]");
}

fn print_backends() {
    println!(
        "{:<24} {:<8} {:<16} {:<22} {:<34} status",
        "backend", "worker", "version", "profiles", "operations"
    );
    for b in catalog().into_iter().filter(|b| !b.hidden) {
        let ops: Vec<&str> = b.ops.iter().map(|o| o.name()).collect();
        let status = match &b.available {
            Ok(()) => "available".to_string(),
            Err(reason) => format!("unavailable: {reason}"),
        };
        // An outside worker's version names its manifest's hash, given a line of its own.
        let (version, manifest) = match b.version.as_deref() {
            Some(version) => match crate::catalog::external::split_version(version) {
                (version, Some(manifest)) => (version, Some(manifest)),
                _ => (version, None),
            },
            None if b.worker.is_peer() || b.worker.is_heavy() => ("—", None),
            None => ("built in", None),
        };
        println!(
            "{:<24} {:<8} {:<16} {:<22} {:<34} {status}",
            b.name,
            b.worker.name(),
            version,
            b.profiles.join(","),
            // A backend of the array layout only (a bare matrix) does no table operation.
            if ops.is_empty() {
                "—".to_string()
            } else {
                ops.join(",")
            }
        );
        let format = b
            .format
            .as_deref()
            .map_or(String::new(), |f| format!("format: {f}; "));
        println!(
            "{:<24} {} ({format}targets: {})",
            "",
            b.about,
            b.targets.join(", ")
        );
        // Why `--storage s3` leaves it out (Spark's S3 connector jars: FORMATBENCH_SPARK_JARS).
        if let (Ok(()), Err(reason)) = (&b.available, &b.object_storage) {
            println!("{:<24} object storage: unsupported: {reason}", "");
        }
        if let Some(manifest) = manifest {
            let mut line = format!("manifest {manifest}");
            for profile in &b.profiles {
                let settings = crate::catalog::external::profile_settings(&b.name, profile);
                if !settings.is_empty() {
                    let text = crate::catalog::external::settings_text(&settings);
                    line.push_str(&format!("; profile {profile}: {text}"));
                }
            }
            println!("{:<24} {line}", "");
        }
        if b.layouts.len() > 1
            || b.layouts
                .iter()
                .any(|(_, ops)| ops.iter().any(|o| o.is_matrix()))
        {
            for (layout, ops) in &b.layouts {
                let ops: Vec<&str> = ops.iter().map(|o| o.name()).collect();
                println!("{:<24} layout {layout}: {}", "", ops.join(","));
            }
        }
    }
    if let Err(reason) = crate::peers::python_backends() {
        println!("\nPython peers: unavailable: {reason}");
    }
    if let Err(reason) = crate::peers::r_backends() {
        println!("\nR peers: unavailable: {reason}");
    }
}
