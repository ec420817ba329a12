//! The store every part of the Zarr backend opens: its directory, the codec options and
//! pool set once per worker, chunk sizes and the compressor of each profile.

use formatbench_worker_kit::KitError;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};
use zarrs::array::codec::{BloscCodec, BloscCompressionLevel, BloscCompressor, BloscShuffleMode};
use zarrs::array::{BytesToBytesCodecTraits, CodecOptions};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::ReadableStorageTraits;

pub(super) const LIBRARY: &str = "zarrs 0.23.14";
/// The store directory inside the artifact.
pub(super) const ROOT: &str = "data.zarr";
/// The root group attribute holding the table's description.
pub(super) const ATTRIBUTE: &str = "formatbench";
/// Rows (and features) per chunk, at most.
pub(super) const CHUNK: u64 = 1024;
pub(super) const BLOSC_LEVEL: u8 = 5;

pub(super) fn library(e: impl std::fmt::Display) -> KitError {
    KitError::Library(format!("zarrs: {e}"))
}

/// Sizes rayon's global pool (zarrs' codec threads) before zarrs first touches it, and turns on
/// storing chunks equal to the fill value. A worker runs one job, so the first cap holds.
pub(super) fn init(threads: usize) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // An error means the pool already exists; nothing else can be done about it then.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build_global();
        let mut config = zarrs::config::global_config_mut();
        config.set_store_empty_chunks(true);
        config.set_codec_concurrent_target(threads.max(1));
    });
}

/// The configured options, passed to every `_opt` call (see the module comment).
pub(super) fn codec_options() -> CodecOptions {
    zarrs::config::global_config().codec_options()
}

pub(super) fn root(dir: &Path) -> PathBuf {
    dir.join(ROOT)
}

/// A store read back: the directory, or the artifact's objects.
pub(super) type Store = dyn ReadableStorageTraits;

/// The store in `dir` (the bucket's is remote.rs's).
pub(super) fn open_store(dir: &Path) -> Result<Arc<Store>, KitError> {
    let root = root(dir);
    if !root.is_dir() {
        return Err(KitError::Invalid(format!(
            "no Zarr store at {}",
            root.display()
        )));
    }
    Ok(Arc::new(FilesystemStore::new(&root).map_err(library)?))
}

/// Rows per chunk along a dimension of `n`.
pub(super) fn chunk(n: u64) -> u64 {
    n.clamp(1, CHUNK)
}

pub(super) fn compressor(
    profile: &str,
    size: usize,
) -> Result<Arc<dyn BytesToBytesCodecTraits>, KitError> {
    let cname = match profile {
        "compact" => BloscCompressor::Zstd,
        _ => BloscCompressor::LZ4,
    };
    let level = BloscCompressionLevel::try_from(BLOSC_LEVEL)
        .map_err(|l| KitError::Invalid(format!("blosc has no level {l}")))?;
    let codec = BloscCodec::new(
        cname,
        level,
        None,
        BloscShuffleMode::Shuffle,
        Some(size.max(1)),
    )
    .map_err(library)?;
    Ok(Arc::new(codec))
}
