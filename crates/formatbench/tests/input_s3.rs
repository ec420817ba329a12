#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Your file where it is (issue 44, item 5): `--input s3://BUCKET/KEY --endpoint URL` reads a
//! user's object in place. A second S3 server stands for the user's store: the canonical
//! source comes from one untimed download, the `as-given` competitors read the object itself
//! (ranged GETs, counted by that server), and nothing is written to it.

mod common;

use arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use common::own_store::{own_store, OWN_KEY};
use common::{run_dir, samples, stderr};
use formatbench::results::SampleStatus;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const ROWS: i64 = 100_000;

/// A Parquet file of 10 row groups written into the store's bucket `data` as `in/events.parquet`.
fn put_object(root: &Path) -> PathBuf {
    let ids: Vec<i64> = (0..ROWS).collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids.clone())) as ArrayRef),
        (
            "x",
            Arc::new(Float64Array::from_iter_values(
                ids.iter().map(|i| (i % 977) as f64 / 3.0),
            )),
        ),
        (
            "s",
            Arc::new(StringArray::from_iter_values(
                ids.iter().map(|i| format!("w{}", i % 1013)),
            )),
        ),
    ])
    .unwrap();
    let dir = root.join("data/in");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("events.parquet");
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some((ROWS / 10) as usize))
        .build();
    let mut writer = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&path).unwrap(),
        batch.schema(),
        Some(props),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    path
}

/// The store's own count of what it served since it started (its traffic window).
fn traffic(endpoint: &str) -> serde_json::Value {
    let address = endpoint.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET /__formatbench/traffic HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let body = response.split_once("\r\n\r\n").unwrap().1;
    serde_json::from_str(body).unwrap()
}

/// Every file under `dir` with its length and modification time.
fn listing(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(listing(&path));
        } else {
            let meta = entry.metadata().unwrap();
            out.push((path, meta.len(), meta.modified().unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn a_users_object_is_read_in_place_and_nothing_is_written_to_its_store() {
    let store = own_store();
    put_object(store.root.path());
    let before = listing(&store.root.path().join("data"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let result = std::process::Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args(["run", "--input", "s3://data/in/events.parquet"])
        .args(["--endpoint", &store.endpoint, "--index", "id"])
        .args(["--backends", "parquet,ipc", "--ops", "read,range,take"])
        .args(["--samples", "1", "--min-sample-ms", "0", "--out"])
        .arg(&out)
        .env("AWS_ACCESS_KEY_ID", OWN_KEY.0)
        .env("AWS_SECRET_ACCESS_KEY", OWN_KEY.1)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));

    let all = samples(&run_dir(&out));
    let given: Vec<_> = all
        .iter()
        .filter(|s| s.cell.profile == "as-given")
        .collect();
    // Only parquet reads a Parquet file as given; each of its reads verified, from the store.
    assert_eq!(given.len(), 3, "{given:?}");
    for s in &given {
        assert_eq!(s.cell.backend, "parquet");
        assert_eq!(s.status, SampleStatus::Ok, "{s:?}");
        assert_eq!(
            (s.cell.storage.as_str(), s.cell.network.as_str()),
            ("s3", "endpoint")
        );
    }
    // The re-encodings are the run's own, on local files as the run asked.
    assert!(all
        .iter()
        .filter(|s| s.cell.profile != "as-given")
        .all(|s| s.cell.storage == "local" && s.status == SampleStatus::Ok));
    assert!(all.iter().any(|s| s.cell.backend == "ipc"));

    // The worker's own client counted each read's requests and bytes: the user's store has
    // no counters for formatbench.
    for s in &given {
        assert_eq!(s.traffic_counted_by.as_deref(), Some("client"), "{s:?}");
        let counted = s.object_traffic.as_ref().expect("client-side traffic");
        assert!(counted.bytes_sent > 0 && counted.get + counted.get_range > 0);
        assert_eq!(counted.put + counted.part + counted.delete, 0);
    }
    let read = |op: &str| {
        given
            .iter()
            .find(|s| s.cell.op == op)
            .unwrap()
            .object_traffic
            .as_ref()
            .unwrap()
            .bytes_sent
    };
    assert!(
        read("range") < read("read"),
        "a range fetches less than a full read"
    );
    let report = std::fs::read_to_string(run_dir(&out).join("report.md")).unwrap();
    assert!(report.contains("counted by the worker's own S3 client"));

    // The store served the download and the ranged reads of the object, and took nothing.
    let served = traffic(&store.endpoint);
    for kind in ["put", "part", "multipart", "delete"] {
        assert_eq!(served[kind], 0, "{kind}: {served}");
    }
    assert!(served["get_range"].as_u64().unwrap() > 0, "{served}");
    assert_eq!(listing(&store.root.path().join("data")), before);
}

#[test]
fn an_s3_input_without_an_endpoint_or_an_object_is_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    for (input, said) in [
        ("s3://data/in/events.parquet", "add --endpoint URL"),
        ("s3://data", "name the object"),
    ] {
        let mut args = vec!["run", "--input", input, "--out"];
        args.push(dir.path().to_str().unwrap());
        if said != "add --endpoint URL" {
            args.extend(["--endpoint", "http://127.0.0.1:9"]);
        }
        let result = common::formatbench(&args);
        assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
        assert!(stderr(&result).contains(said), "{}", stderr(&result));
        assert_eq!(
            stderr(&result).trim().lines().count(),
            1,
            "{}",
            stderr(&result)
        );
    }
}
