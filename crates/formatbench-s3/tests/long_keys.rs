//! Keys of any length S3 allows (1,024 bytes) through the server binary and formatbench's own
//! S3 client: s3s-fs names an object's file after its key and its metadata files after the key
//! in base64, so a key past about 140 bytes (or with a part past 255) did not fit a file name
//! (`500 InternalError`, as py-tiledb's fragment files met in `suite egress`). Every call a
//! worker makes is tried on such keys: a PUT, a multipart upload, GETs whole and by range, HEAD,
//! copy, LIST (keys as they were put, under a prefix and by delimiter) and DELETE.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use formatbench_protocol::ObjectTarget;
use formatbench_s3_client::object_store::path::Path as ObjectPath;
use formatbench_s3_client::object_store::{
    ObjectStore, ObjectStoreExt, PutPayload, WriteMultipart,
};
use futures::TryStreamExt;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// S3's longest key, in bytes.
const MAX_KEY: usize = 1024;

/// A key of exactly `MAX_KEY` bytes: `prefix` then parts of `part` bytes (the last shorter),
/// each a run of one letter, joined by '/'.
fn key_of(prefix: &str, part: usize) -> String {
    let mut key = prefix.to_string();
    let mut letter = b'a';
    while key.len() < MAX_KEY {
        if !key.is_empty() && !key.ends_with('/') {
            key.push('/');
        }
        let n = part.min(MAX_KEY - key.len());
        key.extend(std::iter::repeat_n(letter as char, n));
        letter = if letter == b'z' { b'a' } else { letter + 1 };
    }
    assert_eq!(key.len(), MAX_KEY);
    key
}

fn start(root: &std::path::Path) -> (Server, String) {
    let ready = root.join("ready");
    let (key, secret) = ("long-key-test-key", "long-key-test-secret");
    let server = Server(
        Command::new(env!("CARGO_BIN_EXE_formatbench-s3"))
            .arg("--root")
            .arg(root)
            .args(["--listen", "127.0.0.1:0", "--ready"])
            .arg(&ready)
            .env("AWS_ACCESS_KEY_ID", key)
            .env("AWS_SECRET_ACCESS_KEY", secret)
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while std::fs::read_to_string(&ready).map_or(true, |t| t.is_empty()) {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the server did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The client reads its credentials from the environment, as workers do.
    std::env::set_var("AWS_ACCESS_KEY_ID", key);
    std::env::set_var("AWS_SECRET_ACCESS_KEY", secret);
    let address = std::fs::read_to_string(&ready).unwrap();
    (server, format!("http://{}", address.trim()))
}

#[test]
fn keys_of_any_legal_length_are_put_read_listed_and_deleted() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("fbtest")).unwrap();
    let (_server, endpoint) = start(root.path());
    let target = ObjectTarget {
        endpoint,
        bucket: "fbtest".into(),
        key: String::new(),
        region: "us-east-1".into(),
        objects: Default::default(),
        network: None,
    };
    let store = formatbench_s3_client::client(&target).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    // Parts of 200 bytes under a prefix (a library's files inside an artifact), one part of
    // 1,024 bytes (over a file name's 255), and a short key beside them.
    let deep = key_of("run/artifact/", 200);
    let single = key_of("", MAX_KEY);
    let copied = key_of("run/copy/", 250);
    let short = "run/short.bin".to_string();
    assert!(!single.contains('/'));
    let small: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    // Over 5 MiB: two parts, the first of object_store's 5 MiB.
    let large: Vec<u8> = (0..6 * 1024 * 1024u32).map(|i| (i % 241) as u8).collect();

    for key in [&deep, &single, &short] {
        let path = ObjectPath::from(key.as_str());
        assert_eq!(path.as_ref(), key, "object_store keeps the key as it is");
        runtime
            .block_on(store.put(&path, PutPayload::from(small.clone())))
            .unwrap_or_else(|e| panic!("PUT {} bytes: {e}", key.len()));
        let got = runtime
            .block_on(async { store.get(&path).await?.bytes().await })
            .unwrap();
        assert_eq!(got.to_vec(), small, "GET {} bytes", key.len());
        let part = runtime
            .block_on(store.get_range(&path, 1_000..2_345))
            .unwrap();
        assert_eq!(part.to_vec(), small[1_000..2_345]);
        let head = runtime.block_on(store.head(&path)).unwrap();
        assert_eq!(head.size, small.len() as u64);
        assert_eq!(head.location.as_ref(), key);
    }

    // A multipart upload over a single PUT of the same key, and one of the longest part.
    for key in [&deep, &single] {
        let path = ObjectPath::from(key.as_str());
        runtime
            .block_on(async {
                let upload = store.put_multipart(&path).await?;
                let mut writer = WriteMultipart::new(upload);
                writer.write(&large);
                writer.finish().await
            })
            .unwrap_or_else(|e| panic!("multipart upload of a {}-byte key: {e}", key.len()));
        let got = runtime
            .block_on(async { store.get(&path).await?.bytes().await })
            .unwrap();
        assert!(
            got.to_vec() == large,
            "the multipart object reads back whole"
        );
        let tail = runtime
            .block_on(store.get_range(&path, 6_000_000..large.len() as u64))
            .unwrap();
        assert_eq!(tail.to_vec(), large[6_000_000..]);
    }

    runtime
        .block_on(store.copy(
            &ObjectPath::from(deep.as_str()),
            &ObjectPath::from(copied.as_str()),
        ))
        .unwrap();
    let got = runtime
        .block_on(async {
            store
                .get(&ObjectPath::from(copied.as_str()))
                .await?
                .bytes()
                .await
        })
        .unwrap();
    assert!(got.to_vec() == large, "the copy reads back whole");

    // LIST returns every key as it was put, with its size.
    let listed = |prefix: Option<&str>| {
        let prefix = prefix.map(ObjectPath::from);
        let mut out: Vec<(String, u64)> = runtime
            .block_on(store.list(prefix.as_ref()).try_collect::<Vec<_>>())
            .unwrap()
            .into_iter()
            .map(|m| (m.location.as_ref().to_string(), m.size))
            .collect();
        out.sort();
        out
    };
    let mut all = vec![
        (deep.clone(), large.len() as u64),
        (single.clone(), large.len() as u64),
        (copied.clone(), large.len() as u64),
        (short.clone(), small.len() as u64),
    ];
    all.sort();
    assert_eq!(listed(None), all);
    // Each entry carries the ETag its HEAD answers with (s3fs requires one in a listing).
    let metas = runtime
        .block_on(store.list(None).try_collect::<Vec<_>>())
        .unwrap();
    for meta in metas {
        let head = runtime.block_on(store.head(&meta.location)).unwrap();
        assert!(meta.e_tag.is_some(), "{}", meta.location);
        assert_eq!(meta.e_tag, head.e_tag, "{}", meta.location);
    }
    let mut under_run: Vec<_> = all
        .iter()
        .filter(|(k, _)| k.starts_with("run/"))
        .cloned()
        .collect();
    under_run.sort();
    assert_eq!(listed(Some("run")), under_run);
    assert_eq!(
        listed(Some("run/artifact")),
        vec![(deep.clone(), large.len() as u64)]
    );
    let by_delimiter = runtime
        .block_on(store.list_with_delimiter(Some(&ObjectPath::from("run"))))
        .unwrap();
    let mut prefixes: Vec<String> = by_delimiter
        .common_prefixes
        .iter()
        .map(|p| p.as_ref().to_string())
        .collect();
    prefixes.sort();
    assert_eq!(prefixes, ["run/artifact", "run/copy"]);
    let objects: Vec<&str> = by_delimiter
        .objects
        .iter()
        .map(|m| m.location.as_ref())
        .collect();
    assert_eq!(objects, [short.as_str()]);

    // DELETE each; nothing is listed after, and a GET finds nothing.
    for key in [&deep, &single, &copied, &short] {
        runtime
            .block_on(store.delete(&ObjectPath::from(key.as_str())))
            .unwrap();
    }
    assert_eq!(listed(None), Vec::new());
    let gone = runtime.block_on(store.get(&ObjectPath::from(single.as_str())));
    assert!(
        matches!(
            gone,
            Err(formatbench_s3_client::object_store::Error::NotFound { .. })
        ),
        "{gone:?}"
    );
}
