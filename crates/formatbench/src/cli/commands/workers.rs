//! `formatbench workers`: the user's registered worker manifests (add, remove, list), the
//! conformance check of one (`check`), and the Python SDK written out (`sdk`).

use crate::catalog::external::{self, config, ExternalWorker};
use crate::catalog::WorkerKind;
use crate::cli::args::WorkersAction;
use crate::Error;
use std::path::Path;

mod check;

pub fn workers(action: WorkersAction) -> Result<i32, Error> {
    match action {
        WorkersAction::Add { manifest } => {
            // Refused here, not at the next run, when it is not a manifest formatbench can use.
            let worker = external::load(&manifest, WorkerKind::External(0))?;
            let added = config::add(&manifest)?;
            println!(
                "{} {}: `{}` for {}",
                if added {
                    "registered"
                } else {
                    "already registered"
                },
                manifest.display(),
                external::command_line(&worker),
                names(&worker)
            );
            println!(
                "every formatbench command now runs this command when it asks for these \
                 backends: a command of your choosing, run as every worker is; nothing is fetched \
                 (`formatbench workers remove {}` forgets it; list in {})",
                manifest.display(),
                config::path().display()
            );
            Ok(0)
        }
        WorkersAction::Remove { manifest } => {
            if config::remove(&manifest)? {
                println!("forgot {}", manifest.display());
                Ok(0)
            } else {
                Err(Error::Input(format!(
                    "{} is not registered (`formatbench workers list`)",
                    manifest.display()
                )))
            }
        }
        WorkersAction::List => {
            let manifests = config::manifests()?;
            if manifests.is_empty() {
                println!(
                    "no worker manifests registered ({}); `formatbench workers add PATH` \
                     registers one",
                    config::path().display()
                );
            }
            for manifest in manifests {
                match external::load(&manifest, WorkerKind::External(0)) {
                    Ok(worker) => println!(
                        "{}: `{}` for {}",
                        manifest.display(),
                        external::command_line(&worker),
                        names(&worker)
                    ),
                    Err(e) => println!("{}: cannot be loaded: {e}", manifest.display()),
                }
            }
            Ok(0)
        }
        WorkersAction::Check {
            manifest,
            rows,
            out,
        } => check::check(&manifest, rows, out),
        WorkersAction::Sdk { dir } => sdk(&dir),
    }
}

/// Writes the Python SDK into `dir` and says how to install it.
fn sdk(dir: &Path) -> Result<i32, Error> {
    crate::peers::write_python_sdk(dir)?;
    println!(
        "wrote the Python SDK (formatbench_worker, protocol {}) to {}: `pip install {}` makes \
         it importable (it needs pyarrow; offline, with setuptools and wheel installed: `pip \
         install --no-build-isolation {}`); docs/adding-a-backend.md builds a worker on it",
        formatbench_protocol::PROTOCOL_VERSION,
        dir.display(),
        dir.display(),
        dir.display()
    );
    Ok(0)
}

/// "ext-a (1.0 (manifest xxh3:…)), ext-b (…)".
fn names(worker: &ExternalWorker) -> String {
    let names: Vec<String> = worker
        .backends
        .iter()
        .map(|b| format!("{} ({})", b.name, b.version.as_deref().unwrap_or("")))
        .collect();
    names.join(", ")
}
