//! A store of the user's own for the tests of object storage: formatbench's S3 server started
//! by hand, as any other S3-compatible server would be.

use std::path::Path;
use std::process::Command;

/// A store of the user's own: an S3 server started by hand (formatbench's, as any other),
/// with one object outside the prefix the runs use.
pub struct OwnStore {
    child: std::process::Child,
    pub endpoint: String,
    pub root: tempfile::TempDir,
}

pub const OWN_KEY: (&str, &str) = ("own-access-key", "own-secret-key");

pub fn own_store() -> OwnStore {
    own_store_with(None)
}

/// A store of one's own; with a certificate and key (PEM files), behind HTTPS.
pub fn own_store_with(tls: Option<(&Path, &Path)>) -> OwnStore {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("data/other")).unwrap();
    std::fs::write(root.path().join("data/other/keep.txt"), "not the run's").unwrap();
    let ready = root.path().join("ready");
    let mut child = Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args(["__s3-server", "--listen", "127.0.0.1:0", "--root"])
        .arg(root.path())
        .arg("--ready")
        .arg(&ready)
        .args(tls.map_or(Vec::new(), |(cert, key)| {
            vec![
                "--tls-cert".into(),
                cert.as_os_str().to_owned(),
                "--tls-key".into(),
                key.as_os_str().to_owned(),
            ]
        }))
        .env("AWS_ACCESS_KEY_ID", OWN_KEY.0)
        .env("AWS_SECRET_ACCESS_KEY", OWN_KEY.1)
        .spawn()
        .unwrap();
    for _ in 0..500 {
        if let Ok(address) = std::fs::read_to_string(&ready) {
            if !address.is_empty() {
                let scheme = if tls.is_some() { "https" } else { "http" };
                let endpoint = format!("{scheme}://{address}");
                return OwnStore {
                    child,
                    endpoint,
                    root,
                };
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the store did not start");
}

impl Drop for OwnStore {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
