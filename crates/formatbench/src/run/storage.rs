//! Object storage for a run: formatbench's own S3 server (`--storage s3`, with `--network`),
//! or a store of the user's own (`--storage s3://BUCKET/PREFIX --endpoint URL`), checked before
//! any work and emptied of everything the run wrote when it ends. The runner asks it for each
//! job's object target and, around each sample, for the server's count of its traffic (a
//! store of the user's own counts nothing formatbench can read: its samples carry none).

mod netns;
mod probe;
mod server;

use crate::plan::{Storage, UserStore};
use crate::Error;
use formatbench_protocol::{ObjectTarget, ObjectTraffic, SplitTraffic};
use std::path::Path;

/// What the server counted during a sample: split at the end of the worker's first call when
/// the worker said when that was (and made more calls), else whole.
#[derive(Debug, Clone, PartialEq)]
pub enum SampleTraffic {
    Whole(ObjectTraffic),
    Split(Box<SplitTraffic>),
}

/// The target of `relative` (a path below the scratch) under `base`'s key: a short name of
/// the path (12 hex digits of its hash), not the path itself: the files a library writes
/// inside an artifact (Lance's `data/<52 hex digits>.lance`, TileDB's fragments) keep the rest
/// of S3's 1,024 bytes, and on formatbench's own server most keys stay short enough to lie
/// in files of their own names (longer ones go under stand-ins: formatbench-s3's `keys`).
fn below(base: ObjectTarget, relative: &Path) -> ObjectTarget {
    let path = relative.to_string_lossy().replace('\\', "/");
    if path.is_empty() {
        return base;
    }
    let short = format!("{:012x}", xxhash_rust::xxh3::xxh3_64(path.as_bytes()) >> 16);
    ObjectTarget {
        key: base.key_of(&short),
        ..base
    }
}

pub enum ObjectStorage {
    Server(server::Server),
    Store {
        store: UserStore,
        key_prefix: String,
    },
}

impl ObjectStorage {
    /// The storage a run's plan asks for; `None` for local files.
    pub fn start_for_run(
        storage: &Storage,
        scratch: &Path,
        run_id: &str,
        listen: Option<String>,
    ) -> Result<Option<ObjectStorage>, Error> {
        match storage {
            Storage::Local => Ok(None),
            Storage::S3 { network } => Ok(Some(ObjectStorage::Server(server::Server::start(
                *network, scratch, run_id, listen,
            )?))),
            Storage::Endpoint(store) => {
                let missing = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]
                    .into_iter()
                    .filter(|name| std::env::var(name).map_or(true, |v| v.is_empty()))
                    .collect::<Vec<_>>();
                if !missing.is_empty() {
                    return Err(Error::Input(format!(
                        "--storage {}: set {} for the store",
                        store.url(),
                        missing.join(" and ")
                    )));
                }
                let storage = ObjectStorage::Store {
                    store: store.clone(),
                    key_prefix: store.key(run_id),
                };
                formatbench_s3_client::check_store(&storage.target(Path::new("")))
                    .map_err(|why| Error::Input(format!("--storage {}: {why}", store.url())))?;
                crate::progress::say(&format!(
                    "object storage: {} at {}; everything this run writes goes under {}",
                    store.url(),
                    store.endpoint,
                    storage.target(Path::new("")).url()
                ));
                Ok(Some(storage))
            }
        }
    }

    /// The object target of a job's artifact at `relative` (a path below the scratch).
    pub fn target(&self, relative: &Path) -> ObjectTarget {
        match self {
            ObjectStorage::Server(server) => server.target(relative),
            ObjectStorage::Store { store, key_prefix } => {
                let base = ObjectTarget {
                    endpoint: store.endpoint.clone(),
                    bucket: store.bucket.clone(),
                    key: key_prefix.clone(),
                    region: store.region.clone(),
                    objects: Default::default(),
                    network: None,
                };
                below(base, relative)
            }
        }
    }

    /// Removes the objects under a target (a write sample's output). A store that stopped
    /// answering is not said here: the run stops on it, in one line.
    pub fn remove(&self, target: &ObjectTarget) {
        match self {
            ObjectStorage::Server(server) => server.remove(target),
            ObjectStorage::Store { .. } => {
                if let Err(why) = formatbench_s3_client::remove_prefix(target) {
                    if self.unreachable().is_none() {
                        crate::progress::say(&why);
                    }
                }
            }
        }
    }

    /// The process of formatbench's own S3 server, whose work is the run's own; `None` for a
    /// store of the user's.
    pub fn server_pid(&self) -> Option<u32> {
        match self {
            ObjectStorage::Server(server) => Some(server.pid()),
            ObjectStorage::Store { .. } => None,
        }
    }

    /// Why a store of the user's own no longer answers, if it does not: asked after a
    /// failure, so that a store gone mid-run stops the run at once rather than failing every
    /// sample left. formatbench's own server is restarted instead ([`Self::begin_sample`]).
    pub fn unreachable(&self) -> Option<String> {
        match self {
            ObjectStorage::Server(_) => None,
            ObjectStorage::Store { store, .. } => {
                let why = probe::answers(&self.target(Path::new(""))).err()?;
                Some(format!(
                    "the object store at {} is unreachable: {why}",
                    store.endpoint
                ))
            }
        }
    }

    /// Before a sample: a new traffic window, and a server that died restarted (what
    /// happened to it, if anything).
    pub fn begin_sample(&mut self) -> Result<Option<String>, Error> {
        match self {
            ObjectStorage::Server(server) => server.begin_sample(),
            ObjectStorage::Store { .. } => Ok(None),
        }
    }

    /// After a sample: the server's count of its traffic (`None` for a store of the user's
    /// own), split where the worker's first call ended when it said, or why the sample failed
    /// (the server died during it).
    pub fn end_sample(
        &mut self,
        first_call_ended: Option<f64>,
    ) -> Result<Option<SampleTraffic>, String> {
        match self {
            ObjectStorage::Server(server) => server.end_sample(first_call_ended).map(Some),
            ObjectStorage::Store { .. } => Ok(None),
        }
    }

    /// When the run ends: a store of the user's own is emptied of everything the run wrote,
    /// unless `keep` (`--keep-artifacts`), or told what is left there when it cannot be; the
    /// server's files go with the scratch.
    pub fn finish(&self, keep: bool) {
        if let (ObjectStorage::Store { .. }, false) = (self, keep) {
            let all = self.target(Path::new(""));
            match formatbench_s3_client::remove_prefix(&all) {
                Ok(n) => crate::progress::say(&format!(
                    "removed the run's {n} objects from {}",
                    all.url()
                )),
                Err(why) => {
                    let why = match self.unreachable() {
                        Some(_) => "the store does not answer".to_string(),
                        None => why,
                    };
                    crate::progress::say(&format!(
                        "left the run's objects under {} ({why}): a `--resume` of the run \
                         removes them when it ends, or remove them by hand",
                        all.url()
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_artifact_key_is_short_and_stable_whatever_its_path() {
        let base = ObjectTarget {
            endpoint: "http://127.0.0.1:1".into(),
            bucket: "formatbench".into(),
            key: "20261203T174431Z-07631".into(),
            region: "us-east-1".into(),
            network: None,
            objects: Default::default(),
        };
        let long = Path::new("writes/0-py-lance-default-wide-write-r0-with-a-long-dataset-name");
        let a = below(base.clone(), long);
        assert_eq!(a.key.len(), base.key.len() + 13, "{}", a.key);
        assert!(a.key.starts_with("20261203T174431Z-07631/"));
        assert_eq!(below(base.clone(), long), a);
        assert_ne!(below(base.clone(), Path::new("writes/other")).key, a.key);
        // The run's own prefix stays as it is (a user store is checked and emptied there).
        assert_eq!(below(base.clone(), Path::new("")), base);
    }
}
