//! `--storage s3`: every artifact through formatbench's own S3 server, and the server's own
//! count of each sample's traffic. The faults the issue lists: a server that cannot start
//! (program missing, address taken), one that dies mid-run, a namespace a crash left behind.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod common;

use common::own_store::{own_store, own_store_with, OwnStore, OWN_KEY};
use common::{formatbench, run_dir, samples, stderr};
use formatbench::results::SampleStatus;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn s3_run(backends: &str, ops: &str, extra: &[&str], out: &Path) -> Output {
    s3_run_with(backends, ops, extra, out, &[])
}

/// A small run on the S3 server, with `env` set for formatbench (and the server it starts).
fn s3_run_with(
    backends: &str,
    ops: &str,
    extra: &[&str],
    out: &Path,
    env: &[(&str, String)],
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_formatbench"));
    command
        .args([
            "run",
            "--storage",
            "s3",
            "--backends",
            backends,
            "--ops",
            ops,
        ])
        .args(["--rows", "3000", "--rounds", "1"])
        .arg("--out")
        .arg(out)
        .args(extra);
    for (flag, default) in [("--samples", "2"), ("--min-sample-ms", "0")] {
        if !extra.contains(&flag) {
            command.args([flag, default]);
        }
    }
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("the formatbench binary runs")
}

/// No S3 server of a test's run is left running (they run as `formatbench __s3-server`
/// with `--root` inside the test's folder).
fn no_server_left(out: &std::path::Path) {
    let listed = Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .expect("ps runs");
    let text = String::from_utf8_lossy(&listed.stdout);
    let root = out.to_string_lossy();
    assert!(
        !text
            .lines()
            .any(|l| l.contains("__s3-server") && l.contains(root.as_ref())),
        "an S3 server of this run is still running:\n{text}"
    );
}

#[test]
fn every_read_and_write_is_counted_by_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let out = s3_run(
        "parquet,ipc,csv,ipc-parts",
        "read,project,write,range_between",
        &[],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_dir(dir.path());
    let samples = samples(&run);
    assert!(!samples.is_empty());
    for s in &samples {
        // The label reads are the table store's alone.
        if s.cell.op == "range_between" && s.cell.backend != "ipc-parts" {
            assert_eq!(s.status, SampleStatus::Unsupported, "{:?}", s.cell);
            continue;
        }
        assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
        assert_eq!(
            (s.cell.storage.as_str(), s.cell.network.as_str()),
            ("s3", "local")
        );
        let traffic = s.object_traffic.as_ref().expect("traffic");
        assert!(traffic.requests() > 0, "{:?} made no request", s.cell);
        if s.cell.op == "write" {
            assert!(traffic.bytes_received > 0 && traffic.put + traffic.part > 0);
        } else {
            assert!(traffic.bytes_sent > 0 && traffic.get + traffic.get_range > 0);
        }
        // The streaming readers mark their first batch, inside the call.
        if s.cell.op != "write" && matches!(s.cell.backend.as_str(), "parquet" | "ipc") {
            let first = s.phases.get("first_batch").copied().unwrap_or(-1.0);
            assert!(
                first > 0.0 && first <= s.warm_call_s.or(s.wall_s).unwrap_or(0.0),
                "{:?}: {:?}",
                s.cell,
                s.phases
            );
        }
    }
    // CSV is one whole object, whatever is asked.
    let csv = samples
        .iter()
        .find(|s| s.cell.backend == "csv" && s.cell.op == "project")
        .and_then(|s| s.object_traffic.clone())
        .expect("a csv projection");
    assert_eq!((csv.get, csv.get_range), (1, 0));
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains("## Object storage"), "{report}");
    assert!(report.contains("Egress ×1,000") && report.contains("First batch"));
    // Groups on object storage say where they read from.
    assert!(report.contains("· s3 over local"), "{report}");
    no_server_left(dir.path());
}

#[test]
fn a_projection_fetches_a_fraction_of_what_a_full_read_fetches() {
    // Readers merge ranges only where a gap costs less than a round trip and wastes at most
    // a tenth of what they need, so a projection fetches its own columns at any size
    // (tests/object_storage_bytes.rs holds them to the bytes they need).
    let dir = tempfile::tempdir().unwrap();
    let out = formatbench(&[
        "run",
        "--storage",
        "s3",
        "--backends",
        "parquet,ipc",
        "--profiles",
        "default",
        "--ops",
        "read,project",
        "--rows",
        "20000",
        "--rounds",
        "1",
        "--samples",
        "1",
        "--out",
        &dir.path().to_string_lossy(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = samples(&run_dir(dir.path()));
    for backend in ["parquet", "ipc"] {
        let fetched = |op: &str| -> u64 {
            samples
                .iter()
                .find(|s| s.cell.backend == backend && s.cell.op == op)
                .filter(|s| s.status == SampleStatus::Ok)
                .and_then(|s| s.object_traffic.as_ref())
                .map(|t| t.bytes_sent)
                .unwrap_or_else(|| panic!("{backend} {op}: a measured sample with its traffic"))
        };
        let (read, project) = (fetched("read"), fetched("project"));
        assert!(
            project * 2 < read,
            "{backend}: project fetched {project} bytes, read {read}"
        );
    }
}

#[test]
fn a_missing_server_program_is_one_error_line_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir
        .path()
        .join("no-such-server")
        .to_string_lossy()
        .into_owned();
    let env = [("FORMATBENCH_S3_SERVER", missing)];
    let out = s3_run_with("parquet", "read", &[], dir.path(), &env);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("cannot start the S3 server"), "{said}");
    assert!(!said.contains("panicked"), "{said}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "a run folder was left"
    );
}

#[test]
fn an_address_in_use_is_one_error_line_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let out = s3_run("parquet", "read", &["--s3-listen", &address], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("the S3 server did not start") && said.contains(&address),
        "{said}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "a run folder was left"
    );
    no_server_left(dir.path());
}

#[test]
fn a_server_that_dies_mid_run_fails_its_sample_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // Writing the artifact (a PUT each) and verifying it (its GETs) come first; the server
    // exits at the request after these many, within the measured samples.
    let first = {
        let probe = tempfile::tempdir().unwrap();
        let out = s3_run("parquet", "read", &[], probe.path());
        assert!(out.status.success(), "{}", stderr(&out));
        samples(&run_dir(probe.path()))[0]
            .object_traffic
            .as_ref()
            .expect("traffic")
            .requests()
    };
    // Upload (≤ 2), verification (`first` GETs), the first sample, then mid-sample.
    let env = [(
        "FORMATBENCH_S3_EXIT_AFTER",
        (2 + 2 * first + first / 2).to_string(),
    )];
    let out = s3_run_with("parquet", "read", &["--samples", "4"], dir.path(), &env);
    let said = stderr(&out);
    assert!(!said.contains("panicked"), "{said}");
    let run = run_dir(dir.path());
    let samples = samples(&run);
    let failed: Vec<_> = samples
        .iter()
        .filter(|s| s.status == SampleStatus::Failed)
        .collect();
    assert!(!failed.is_empty(), "no sample failed: {said}");
    assert!(
        failed.iter().all(|s| s
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("the S3 server exited during the sample"))),
        "{failed:?}"
    );
    // The server was restarted and later samples were measured.
    let ok = samples
        .iter()
        .filter(|s| s.status == SampleStatus::Ok)
        .count();
    assert!(ok >= 2, "{ok} ok samples of {}: {said}", samples.len());
    assert!(said.contains("restarted"), "{said}");
    no_server_left(dir.path());
}

fn namespaces() -> String {
    let listed = Command::new("ip").args(["netns", "list"]).output().unwrap();
    String::from_utf8_lossy(&listed.stdout).into_owned()
}

#[test]
fn a_shaped_network_runs_in_a_namespace_that_is_gone_afterwards_with_a_stale_one() {
    if !common::namespaces_possible() {
        return;
    }
    // A namespace as a crashed run would leave it: its pid is not alive.
    let stale = "fbs3-999999";
    let made = Command::new("ip")
        .args(["netns", "add", stale])
        .status()
        .unwrap();
    assert!(made.success());
    let dir = tempfile::tempdir().unwrap();
    let out = s3_run("parquet", "read", &["--network", "region"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = samples(&run_dir(dir.path()));
    assert!(samples
        .iter()
        .all(|s| s.status == SampleStatus::Ok && s.cell.network == "region"));
    // Each use makes several round trips of 5 ms at least (the delay line's), so none is
    // faster than one round trip.
    assert!(
        samples.iter().all(|s| s.wall_s.unwrap_or(0.0) > 0.005),
        "{samples:?}"
    );
    let left = namespaces();
    assert!(!left.contains("fbs3-"), "namespaces left: {left}");
    no_server_left(dir.path());
}

#[test]
fn an_unknown_network_or_a_network_without_s3_is_one_error_line() {
    for args in [
        &[
            "run",
            "--storage",
            "s3",
            "--network",
            "wan",
            "--backends",
            "parquet",
        ][..],
        &["run", "--network", "region", "--backends", "parquet"][..],
        &["run", "--storage", "gcs", "--backends", "parquet"][..],
    ] {
        let out = formatbench(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let said = stderr(&out);
        assert_eq!(said.trim().lines().count(), 1, "{args:?}: {said}");
    }
}

#[test]
fn python_peers_read_and_write_through_their_own_s3_clients() {
    if !common::ready("peer", "py-pyarrow-parquet") || !common::ready("peer", "r-data.table") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = s3_run(
        "py-pyarrow-parquet,py-pyarrow-feather,py-pyarrow-feather-mmap,py-pyarrow-csv,\
         py-polars-parquet,py-polars-ipc,py-polars-csv,py-lance,py-vortex,py-daft,py-duckdb,\
         py-zarr,py-featherstore,py-pandas-csv,r-data.table",
        "read,project,write",
        // Fifteen peers: one measured sample a cell checks each one's route.
        &["--profiles", "default", "--samples", "1"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = samples(&run_dir(dir.path()));
    for s in &samples {
        // One maps local files, the other would download DuckDB's httpfs at run time: over
        // S3 they are unsupported, with the reason.
        let refused = match s.cell.backend.as_str() {
            // It reads the feather files py-pyarrow-feather writes (and writes none itself), by
            // mapping local files: every cell of it, `write` too, is refused for that.
            "py-pyarrow-feather-mmap" => Some("maps local files"),
            "py-duckdb" => Some("httpfs"),
            "py-featherstore" => Some("local directory"),
            "r-data.table" => Some("local files only"),
            _ => None,
        };
        if let Some(reason) = refused {
            assert_eq!(s.status, SampleStatus::Unsupported, "{s:?}");
            assert!(
                s.reason.as_deref().is_some_and(|r| r.contains(reason)),
                "{s:?}"
            );
            continue;
        }
        assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
        let traffic = s.object_traffic.as_ref().expect("traffic");
        match s.cell.op.as_str() {
            "write" => assert!(traffic.bytes_received > 0, "{traffic:?}"),
            _ => assert!(traffic.bytes_sent > 0 && traffic.get_range + traffic.get > 0),
        }
        // The peers whose readers hand batches over one by one mark the first, inside the
        // call; those that return whole tables mark none.
        let streams = matches!(
            s.cell.backend.as_str(),
            "py-pyarrow-parquet" | "py-lance" | "py-vortex"
        );
        let first = s.phases.get("first_batch").copied();
        if s.cell.op == "write" || !streams {
            assert_eq!(first, None, "{:?}: {:?}", s.cell, s.phases);
        } else {
            let call = s.warm_call_s.or(s.wall_s).unwrap_or(0.0);
            assert!(
                first.is_some_and(|f| f > 0.0 && f <= call),
                "{:?}: {:?}",
                s.cell,
                s.phases
            );
        }
    }
    for peer in [
        "py-pyarrow-feather",
        "py-pyarrow-csv",
        "py-vortex",
        "py-polars-parquet",
        "py-polars-ipc",
        "py-polars-csv",
        "py-lance",
        "py-daft",
        "py-zarr",
        "py-pandas-csv",
    ] {
        assert!(
            samples
                .iter()
                .any(|s| s.cell.backend == peer && s.status == SampleStatus::Ok),
            "{peer} measured nothing"
        );
    }
    no_server_left(dir.path());
}

/// The layout study's array formats over S3: TileDB through its own S3 client, the `.npy`
/// floor read whole from the object, vortex-data through its object_store client.
#[test]
fn matrix_peers_read_feature_matrices_from_s3() {
    if !common::ready("peer", "py-tiledb") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = s3_run(
        "py-tiledb,py-numpy-npy,py-vortex",
        "matrix,feature_project",
        &[
            "--dataset",
            "features",
            "--features",
            "64",
            "--layouts",
            "array",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = samples(&run_dir(dir.path()));
    for peer in ["py-tiledb", "py-numpy-npy", "py-vortex"] {
        for op in ["matrix", "feature_project"] {
            let cell: Vec<_> = samples
                .iter()
                .filter(|s| s.cell.backend == peer && s.cell.op == op)
                .collect();
            assert!(!cell.is_empty(), "{peer} {op}: no sample");
            for s in cell {
                assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
                let traffic = s.object_traffic.as_ref().expect("traffic");
                assert!(traffic.bytes_sent > 0 && traffic.get + traffic.get_range > 0);
            }
        }
    }
    no_server_left(dir.path());
}

fn run_on(store: &OwnStore, url: &str, secret: &str, out: &Path) -> Output {
    run_on_with(store, url, secret, &[], out)
}

fn run_on_with(
    store: &OwnStore,
    url: &str,
    secret: &str,
    extra_env: &[(&str, &Path)],
    out: &Path,
) -> Output {
    let env = [
        ("AWS_ACCESS_KEY_ID", OWN_KEY.0.to_string()),
        ("AWS_SECRET_ACCESS_KEY", secret.to_string()),
    ];
    let mut command = Command::new(env!("CARGO_BIN_EXE_formatbench"));
    command
        .args(["run", "--storage", url, "--endpoint", &store.endpoint])
        .args([
            "--backends",
            "parquet,csv",
            "--ops",
            "read,project,write",
            "--rows",
            "2000",
        ])
        .args(["--rounds", "1", "--samples", "2", "--out"])
        .arg(out);
    for (name, value) in env {
        command.env(name, value);
    }
    for (name, value) in extra_env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// Every file under `dir`.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_store_of_ones_own_is_used_under_its_prefix_and_emptied_afterwards() {
    let store = own_store();
    let dir = tempfile::tempdir().unwrap();
    let out = run_on(&store, "s3://data/bench", OWN_KEY.1, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = samples(&run_dir(dir.path()));
    assert!(!samples.is_empty());
    for s in &samples {
        assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
        assert_eq!(
            (s.cell.storage.as_str(), s.cell.network.as_str()),
            ("s3", "endpoint")
        );
        // A store of one's own counts nothing for formatbench: the native worker's own S3
        // client counted each sample's requests and bytes, and says so.
        assert_eq!(
            s.traffic_counted_by.as_deref(),
            Some("client"),
            "{:?}",
            s.cell
        );
        let counted = s.object_traffic.as_ref().expect("counted by the client");
        match s.cell.op.as_str() {
            "write" => assert!(counted.bytes_received > 0 && counted.put + counted.part > 0),
            _ => assert!(counted.bytes_sent > 0 && counted.get + counted.get_range > 0),
        }
    }
    let left = files_under(&store.root.path().join("data/bench"));
    assert!(left.is_empty(), "the run left {left:?}");
    assert!(store.root.path().join("data/other/keep.txt").exists());
}

/// A certificate authority and a server certificate for 127.0.0.1 it signed, made with the
/// openssl program: (CA certificate, server certificate, server key), PEM files in `dir`.
fn test_certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let [ca, ca_key, cert, key, request, extensions] = [
        "ca.pem",
        "ca.key",
        "server.pem",
        "server.key",
        "server.csr",
        "server.ext",
    ]
    .map(|name| dir.join(name));
    std::fs::write(&extensions, "subjectAltName=IP:127.0.0.1\n").unwrap();
    let openssl = |args: Vec<&std::ffi::OsStr>| {
        let out = Command::new("openssl").args(args).output().unwrap();
        assert!(out.status.success(), "openssl: {}", stderr(&out));
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    let mut args: Vec<&std::ffi::OsStr> = vec![os("req"), os("-x509")];
    args.extend(ec.map(os));
    args.extend([
        os("-keyout"),
        ca_key.as_os_str(),
        os("-out"),
        ca.as_os_str(),
    ]);
    args.extend(["-days", "2", "-subj", "/CN=formatbench test CA"].map(os));
    openssl(args);
    let mut args: Vec<&std::ffi::OsStr> = vec![os("req")];
    args.extend(ec.map(os));
    args.extend([
        os("-keyout"),
        key.as_os_str(),
        os("-out"),
        request.as_os_str(),
    ]);
    args.extend(["-subj", "/CN=127.0.0.1"].map(os));
    openssl(args);
    let mut args: Vec<&std::ffi::OsStr> = vec![os("x509"), os("-req"), os("-in")];
    args.extend([request.as_os_str(), os("-CA"), ca.as_os_str(), os("-CAkey")]);
    args.extend([ca_key.as_os_str(), os("-CAcreateserial"), os("-out")]);
    args.extend([cert.as_os_str(), os("-days"), os("2"), os("-extfile")]);
    args.push(extensions.as_os_str());
    openssl(args);
    (ca, cert, key)
}

#[test]
fn a_store_behind_https_is_reached_through_tls_and_an_untrusted_one_refused() {
    let has_openssl = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !common::available(
        "the openssl program (to make a test certificate)",
        has_openssl,
    ) {
        return;
    }
    let certificates = tempfile::tempdir().unwrap();
    let (ca, cert, key) = test_certificates(certificates.path());
    let store = own_store_with(Some((&cert, &key)));
    assert!(store.endpoint.starts_with("https://"), "{}", store.endpoint);

    let dir = tempfile::tempdir().unwrap();
    let trusted = [("SSL_CERT_FILE", ca.as_path())];
    let out = run_on_with(&store, "s3://data/bench", OWN_KEY.1, &trusted, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = samples(&run_dir(dir.path()));
    assert!(!samples.is_empty());
    for s in &samples {
        assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
    }
    let left = files_under(&store.root.path().join("data/bench"));
    assert!(left.is_empty(), "the run left {left:?}");

    // Trusting no root (an empty SSL_CERT_FILE), the client refuses the server's
    // certificate: one error line before any work.
    let dir = tempfile::tempdir().unwrap();
    let no_roots = certificates.path().join("no-roots.pem");
    std::fs::write(&no_roots, "").unwrap();
    let out = run_on_with(
        &store,
        "s3://data/bench",
        OWN_KEY.1,
        &[("SSL_CERT_FILE", no_roots.as_path())],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stderr(&out);
    assert_eq!(text.trim().lines().count(), 1, "{text}");
    assert!(text.contains("certificate"), "{text}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn wrong_credentials_or_a_missing_bucket_are_one_error_before_any_work() {
    let store = own_store();
    for (url, secret, said) in [
        (
            "s3://data/bench",
            "not-the-secret",
            "rejected the credentials",
        ),
        (
            "s3://no-such-bucket/bench",
            OWN_KEY.1,
            "has no bucket 'no-such-bucket'",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = run_on(&store, url, secret, dir.path());
        assert_eq!(out.status.code(), Some(2), "{url}: {}", stderr(&out));
        let text = stderr(&out);
        assert!(text.contains(said), "{url}: {text}");
        assert_eq!(text.trim().lines().count(), 1, "{url}: {text}");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{url}: a run folder"
        );
    }
}

/// The heavy backends read the artifacts the runner uploaded through their own object-store
/// routes: Lance and zarrs on formatbench's client (object_store 0.14), vortex on its 0.13
/// twin; a projection fetches less than a whole read.
#[test]
fn heavy_backends_read_through_their_own_s3_routes() {
    let backends: Vec<&str> = ["lance", "vortex", "zarr"]
        .into_iter()
        .filter(|b| common::ready("heavy backend", b))
        .collect();
    if backends.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = s3_run(
        &backends.join(","),
        "read,project,take",
        &["--profiles", "default"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = samples(&run_dir(dir.path()));
    for backend in &backends {
        let fetched = |op: &str| -> u64 {
            let cell: Vec<_> = samples
                .iter()
                .filter(|s| s.cell.backend == *backend && s.cell.op == op)
                .collect();
            assert!(!cell.is_empty(), "{backend} {op}: no sample");
            for s in &cell {
                assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
                assert_eq!(s.cell.storage, "s3");
                let traffic = s.object_traffic.as_ref().expect("traffic");
                assert!(
                    traffic.get + traffic.get_range > 0,
                    "{backend} {op}: {traffic:?}"
                );
            }
            cell.iter()
                .filter_map(|s| s.object_traffic.as_ref())
                .map(|t| t.bytes_sent)
                .min()
                .unwrap_or(0)
        };
        let (read, project) = (fetched("read"), fetched("project"));
        fetched("take");
        assert!(
            project < read,
            "{backend}: a projection fetched {project} bytes, a whole read {read}"
        );
    }
    no_server_left(dir.path());
}

#[test]
fn a_repeated_sample_counts_its_first_call_apart_from_its_warm_calls() {
    let dir = tempfile::tempdir().unwrap();
    // 200 ms a sample: a 3,000-row read takes a few ms, so each sample makes many calls.
    let out = s3_run(
        "parquet,ipc",
        "read",
        &["--min-sample-ms", "200"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = samples(&run_dir(dir.path()));
    assert!(!samples.is_empty());
    for s in &samples {
        assert_eq!(s.status, SampleStatus::Ok, "{:?}: {:?}", s.cell, s.reason);
        let calls = s.calls.unwrap();
        assert!(calls > 1, "{:?} made one call", s.cell);
        let first = s.first_call_object_traffic.as_ref().expect("first call's");
        let warm = s.warm_call_object_traffic.as_ref().expect("warm calls'");
        let mean = s.object_traffic.as_ref().expect("mean");
        assert!(first.bytes_sent > 0 && warm.bytes_sent > 0, "{:?}", s.cell);
        // The parts add up to the whole (each per-call figure is rounded up).
        let parts = first.bytes_sent + warm.bytes_sent * (calls - 1);
        let whole = mean.bytes_sent * calls;
        assert!(
            parts <= whole + calls && whole <= parts + calls,
            "{:?}: first {first:?} + {calls} calls of {warm:?} vs {mean:?}",
            s.cell
        );
    }
}
