//! The user's registered worker manifests (`formatbench workers add`): one TOML file in the
//! user's configuration directory, `manifests = ["/abs/path/manifest.toml", …]`, loaded by
//! every command as if each were given with `--worker`.

use crate::Error;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Registered {
    #[serde(default)]
    manifests: Vec<PathBuf>,
}

/// `$FORMATBENCH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/formatbench`, else
/// `~/.config/formatbench`: the file of registered manifests.
pub fn path() -> PathBuf {
    let dir = match (
        std::env::var_os("FORMATBENCH_CONFIG_DIR"),
        std::env::var_os("XDG_CONFIG_HOME"),
    ) {
        (Some(dir), _) => PathBuf::from(dir),
        (None, Some(config)) => PathBuf::from(config).join("formatbench"),
        (None, None) => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(".config")
            .join("formatbench"),
    };
    dir.join("workers.toml")
}

/// The registered manifests, in the order they were added (none without the file).
pub fn manifests() -> Result<Vec<PathBuf>, Error> {
    let path = path();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::Input(format!("cannot read {}: {e}", path.display()))),
    };
    let registered: Registered = toml::from_str(&text).map_err(|e| {
        Error::Input(format!(
            "{}: {}",
            path.display(),
            e.message().replace('\n', " ")
        ))
    })?;
    Ok(registered.manifests)
}

/// Adds `manifest` (its absolute path) to the registered ones; false when it was there.
pub fn add(manifest: &Path) -> Result<bool, Error> {
    let manifest = manifest
        .canonicalize()
        .map_err(|e| Error::Input(format!("{}: {e}", manifest.display())))?;
    let mut manifests = manifests()?;
    if manifests.contains(&manifest) {
        return Ok(false);
    }
    manifests.push(manifest);
    save(manifests).map(|()| true)
}

/// Removes `manifest`; false when it was not registered.
pub fn remove(manifest: &Path) -> Result<bool, Error> {
    let absolute = manifest
        .canonicalize()
        .unwrap_or_else(|_| manifest.to_path_buf());
    let mut manifests = manifests()?;
    let before = manifests.len();
    manifests.retain(|m| m != &absolute && m != manifest);
    if manifests.len() == before {
        return Ok(false);
    }
    save(manifests).map(|()| true)
}

fn save(manifests: Vec<PathBuf>) -> Result<(), Error> {
    let path = path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(Error::at("create", dir))?;
    }
    let text = toml::to_string(&Registered { manifests })
        .map_err(|e| Error::Input(format!("cannot write {}: {e}", path.display())))?;
    let header = "# Worker manifests registered by `formatbench workers add`: each command is one \
                  you chose, run as every worker is.\n";
    // Written whole, then renamed: a crash leaves the old list, never half of one.
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, format!("{header}{text}")).map_err(Error::at("write", &tmp))?;
    std::fs::rename(&tmp, &path).map_err(Error::at("write", &path))
}
