//! Ranged GETs as S3 answers them, through formatbench's own S3 client against the server
//! binary: a suffix longer than the object is the whole object (Polars asks an IPC file's
//! footer as `bytes=-262144`, whatever the file's length), and every kind of range is the
//! file's bytes.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use formatbench_protocol::ObjectTarget;
use formatbench_s3_client::object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn suffix_ranges_longer_than_the_object_fetch_all_of_it() {
    let root = tempfile::tempdir().unwrap();
    let object: Vec<u8> = (0..24_608u32).map(|i| (i % 251) as u8).collect();
    std::fs::create_dir_all(root.path().join("fbtest/k")).unwrap();
    std::fs::write(root.path().join("fbtest/k/data.ipc"), &object).unwrap();
    let ready = root.path().join("ready");
    let (key, secret) = ("range-test-key", "range-test-secret");
    let _server = Server(
        Command::new(env!("CARGO_BIN_EXE_formatbench-s3"))
            .arg("--root")
            .arg(root.path())
            .args(["--listen", "127.0.0.1:0", "--ready"])
            .arg(&ready)
            .env("AWS_ACCESS_KEY_ID", key)
            .env("AWS_SECRET_ACCESS_KEY", secret)
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while !ready.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the server did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let address = std::fs::read_to_string(&ready).unwrap();
    // The client reads its credentials from the environment, as workers do.
    std::env::set_var("AWS_ACCESS_KEY_ID", key);
    std::env::set_var("AWS_SECRET_ACCESS_KEY", secret);
    let target = ObjectTarget {
        endpoint: format!("http://{}", address.trim()),
        bucket: "fbtest".into(),
        key: "k".into(),
        region: "us-east-1".into(),
        objects: Default::default(),
        network: None,
    };
    let store = formatbench_s3_client::client(&target).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let path = target.key_of("data.ipc").into();
    let suffix = |n: u64| {
        let options = GetOptions {
            range: Some(GetRange::Suffix(n)),
            ..Default::default()
        };
        runtime.block_on(async {
            let got = store.get_opts(&path, options).await.unwrap();
            got.bytes().await.unwrap().to_vec()
        })
    };
    assert_eq!(suffix(100), object[object.len() - 100..]);
    assert_eq!(suffix(262_144), object);
    let whole = runtime.block_on(async { store.get(&path).await.unwrap().bytes().await.unwrap() });
    assert_eq!(whole.to_vec(), object);
    // Bounded and open-ended ranges come from the file as they are (the server reads bodies
    // itself, in large chunks).
    let part = runtime.block_on(async { store.get_range(&path, 1_000..20_001).await.unwrap() });
    assert_eq!(part.to_vec(), object[1_000..20_001]);
    let options = GetOptions {
        range: Some(GetRange::Offset(24_000)),
        ..Default::default()
    };
    let tail = runtime.block_on(async {
        let got = store.get_opts(&path, options).await.unwrap();
        got.bytes().await.unwrap()
    });
    assert_eq!(tail.to_vec(), object[24_000..]);
}
