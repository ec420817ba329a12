//! The peers' program files embedded in the binary, checked against the tree.

use std::path::Path;

/// The program files under `dir` (relative, `/`-separated), README and requirements aside.
fn program_files(dir: &Path, extension: &str) -> Vec<String> {
    let mut out: Vec<String> = formatbench_protocol::files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .filter_map(|p| {
            let relative = p
                .strip_prefix(dir)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            (!relative.contains("__pycache__")).then_some(relative)
        })
        .collect();
    out.sort();
    out
}

/// A worker file missing from its `WORKER_FILES` would be missing from the program the
/// binary writes out: its module would fail to import at the first peer run.
#[test]
fn every_peer_program_file_is_embedded_in_the_binary() {
    let workers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workers");
    for (dir, extension, embedded) in [
        ("python", "py", super::python::WORKER_FILES),
        ("r", "R", super::r::WORKER_FILES),
    ] {
        let mut names: Vec<String> = embedded.iter().map(|(n, _)| n.to_string()).collect();
        names.sort();
        let on_disk = program_files(&workers.join(dir), extension);
        assert!(
            !on_disk.is_empty(),
            "no {extension} files under workers/{dir}"
        );
        assert_eq!(
            names, on_disk,
            "workers/{dir}: WORKER_FILES and the files differ"
        );
    }
}
