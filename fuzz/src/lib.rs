//! What the fuzz targets share: the fuzzer's bytes written to a file with the extension a
//! reader dispatches on, in a directory of this process's own (on /dev/shm when there is one,
//! so an iteration costs no disk I/O).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = Path::new("/dev/shm");
        let base = if base.is_dir() {
            base.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("formatbench-fuzz-{}", std::process::id()));
        // A fuzz target with nowhere to write cannot run at all: stop loudly.
        std::fs::create_dir_all(&dir).expect("a scratch directory for fuzz inputs");
        // Peers are never probed from a fuzz target: a suite naming one then fails fast.
        std::env::set_var("FORMATBENCH_PYTHON", "/nonexistent/python");
        std::env::set_var("FORMATBENCH_RSCRIPT", "/nonexistent/Rscript");
        dir
    })
}

/// Writes `bytes` to `input.EXT` in the scratch directory and runs `read` on its path. The
/// reader's result is ignored: an error is a fine answer, only a panic or a crash is a find.
pub fn with_file(bytes: &[u8], ext: &str, read: impl FnOnce(&Path)) {
    let path = scratch().join(format!("input.{ext}"));
    std::fs::write(&path, bytes).expect("writing the fuzz input");
    read(&path);
}

/// Ingests `path` the way `run --input` does (into the canonical Arrow IPC source).
pub fn ingest(path: &Path) {
    let out = scratch().join("source.arrow");
    let _ = formatbench::datasets::ingest(path, None, &out);
    let _ = formatbench::datasets::ingest(path, Some("index"), &out);
}
