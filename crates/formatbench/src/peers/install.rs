//! `formatbench peers install`: a virtual environment outside the repository with the pinned
//! Python peers, and a check of the R peers (Debian packages, installed by the system's
//! package manager).

use super::python::{venv_dir, REQUIREMENTS};
use crate::Error;
use std::path::Path;
use std::process::Command;

fn run(program: &Path, args: &[&str]) -> Result<(), Error> {
    let status = Command::new(program)
        .args(args)
        .status()
        .map_err(|e| Error::Input(format!("cannot start {}: {e}", program.display())))?;
    if status.success() {
        Ok(())
    } else {
        Err(Error::Input(format!(
            "{} {} failed ({status})",
            program.display(),
            args.join(" ")
        )))
    }
}

/// Creates (or updates) the Python environment; idempotent, pip skips what is installed.
pub fn install(python: Option<&Path>) -> Result<(), Error> {
    let venv = venv_dir();
    let python = python.unwrap_or(Path::new("python3"));
    if !venv.join("bin").join("python").exists() {
        eprintln!("formatbench: creating {}", venv.display());
        std::fs::create_dir_all(&venv).map_err(Error::at("create", &venv))?;
        run(python, &["-m", "venv", &venv.to_string_lossy()])?;
    }
    let requirements = venv.join("requirements.txt");
    std::fs::write(&requirements, REQUIREMENTS).map_err(Error::at("write", &requirements))?;
    let pip = venv.join("bin").join("pip");
    run(
        &pip,
        &[
            "install",
            "--disable-pip-version-check",
            "-q",
            "-r",
            &requirements.to_string_lossy(),
        ],
    )?;
    eprintln!("formatbench: Python peers installed in {}", venv.display());
    // R's packages come from the system's package manager, which this command does not drive.
    match super::r_backends() {
        Ok(backends) => {
            let ready = backends.iter().filter(|b| b.available.is_ok()).count();
            eprintln!(
                "formatbench: R peers: {ready} of {} available (the rest need CRAN packages)",
                backends.len()
            );
        }
        Err(reason) => eprintln!(
            "formatbench: R peers unavailable: {reason}\n  install them with: apt-get install {}",
            super::DEBIAN_PACKAGES
        ),
    }
    Ok(())
}
