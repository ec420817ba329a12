use super::*;

fn manifest(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manifest.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

const TOY: &str = r#"
command = ["sh", "{dir}/worker.sh"]
version = ["echo", "toy 1.2"]

[[backends]]
name = "ext-toy"
about = "a toy"
ops = ["write", "read"]
"#;

#[test]
fn a_manifest_makes_backends_with_its_hash_in_their_version() {
    let (dir, path) = manifest(TOY);
    let worker = load(&path, WorkerKind::External(3)).unwrap();
    let expected = dir.path().canonicalize().unwrap().join("worker.sh");
    assert_eq!(worker.program, PathBuf::from("sh"));
    assert_eq!(worker.args, [expected.to_string_lossy().into_owned()]);
    let toy = &worker.backends[0];
    assert_eq!(toy.worker, WorkerKind::External(3));
    assert_eq!(toy.profiles, ["default"]);
    assert_eq!(toy.targets, ["arrow"]);
    assert_eq!(
        toy.layouts,
        [("wide".to_string(), vec![Op::Write, Op::Read])]
    );
    assert!(toy.object_storage.is_err());
    let version = toy.version.clone().unwrap();
    assert!(version.starts_with("toy 1.2 (manifest xxh3:"), "{version}");
    let (own, hash) = split_version(&version);
    assert_eq!(own, "toy 1.2");
    assert_eq!(Some(hash.unwrap()), Some(worker.hash.as_str()));
    assert_eq!(split_version("pyarrow 25.0.0"), ("pyarrow 25.0.0", None));
    // The script its command names is part of the worker: another script, another hash.
    std::fs::write(dir.path().join("worker.sh"), "exit 0").unwrap();
    let scripted = load(&path, WorkerKind::External(3)).unwrap();
    std::fs::write(dir.path().join("worker.sh"), "exit 1").unwrap();
    let rescripted = load(&path, WorkerKind::External(3)).unwrap();
    assert_ne!(scripted.hash, rescripted.hash);
    // Another byte of the manifest, another hash.
    let (_dir2, changed) = manifest(&TOY.replace("a toy", "a toy!"));
    let other = load(&changed, WorkerKind::External(0)).unwrap();
    assert_ne!(other.hash, worker.hash);
}

#[test]
fn each_profile_carries_the_settings_its_manifest_gives_it() {
    let text = TOY.replace("about =", "profiles = [\"default\", \"fast\"]\nabout =")
        + "[backends.profile_settings.fast]\nlevel = \"1\"\ncodec = \"lz4\"\n";
    let (_dir, path) = manifest(&text);
    let worker = load(&path, WorkerKind::External(0)).unwrap();
    let fast = &worker.profile_settings["ext-toy"]["fast"];
    assert_eq!(settings_text(fast), "codec=lz4; level=1");
    assert!(!worker.profile_settings["ext-toy"].contains_key("default"));
}

#[test]
fn the_wide_layouts_ops_stay_beside_another_layouts() {
    let text = TOY.replace(
        "ops = ",
        "layouts = { array = [\"write\", \"matrix\"] }\nops = ",
    );
    let (_dir, path) = manifest(&text);
    let worker = load(&path, WorkerKind::External(0)).unwrap();
    assert_eq!(
        worker.backends[0].layouts,
        [
            ("wide".to_string(), vec![Op::Write, Op::Read]),
            ("array".to_string(), vec![Op::Write, Op::Matrix]),
        ]
    );
}

#[test]
fn a_bad_manifest_is_one_clear_error() {
    let cases = [
        (TOY.replace("ext-toy", "toy"), "must be named 'ext-…'"),
        (TOY.replace("ext-toy", "ext-a,b"), "must be named 'ext-…'"),
        (
            TOY.replace("about =", "profiles = [\"x/y\"]\nabout ="),
            "profile 'x/y' is not a name",
        ),
        (TOY.replace("ops = ", "opps = "), "unknown field `opps`"),
        (
            TOY.replace("[\"write\", \"read\"]", "[\"write\", \"fly\"]"),
            "fly",
        ),
        (
            TOY.replace("command = [\"sh\", \"{dir}/worker.sh\"]", "command = []"),
            "`command` is empty",
        ),
        (
            TOY.replace("echo", "/nonexistent/version"),
            "its version command `/nonexistent/version`: cannot start it",
        ),
        (
            "command = [\"sh\"]\nbackends = []\n".to_string(),
            "names no [[backends]]",
        ),
        ("not toml at all [".to_string(), "manifest.toml"),
        (
            TOY.replace(
                "ops = ",
                "given = { format = \"orc\", file = \"x\" }\nops = ",
            ),
            "format 'orc', which is none of parquet, arrow-ipc, csv",
        ),
        (
            TOY.replace("ops = ", "format = \"Lance Files\"\nops = "),
            "names format 'Lance Files': a format is a lower-case name",
        ),
        (
            format!("{TOY}[backends.profile_settings.fast]\nlevel = \"1\"\n"),
            "gives settings to profile 'fast', which is not among its profiles (default)",
        ),
        (
            format!("{TOY}[backends.profile_settings.default]\nlevel = 1\n"),
            "invalid type: integer `1`, expected a string",
        ),
    ];
    for (text, said) in cases {
        let (_dir, path) = manifest(&text);
        let err = load(&path, WorkerKind::External(0))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains(said), "{said}: {err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }
}

#[test]
fn a_missing_program_leaves_its_backends_unavailable_with_the_reason() {
    let (_dir, path) = manifest(&TOY.replace("[\"sh\",", "[\"/nonexistent/python\","));
    let worker = load(&path, WorkerKind::External(0)).unwrap();
    let reason = worker.backends[0].available.clone().unwrap_err();
    assert!(
        reason.contains("/nonexistent/python is not found"),
        "{reason}"
    );
}

#[test]
fn no_builtin_backend_carries_the_outside_prefix() {
    // The prefix is what keeps a manifest from shadowing a built-in backend.
    for backend in crate::catalog::native_backends() {
        assert!(!backend.name.starts_with(PREFIX), "{}", backend.name);
    }
}

#[test]
fn a_reader_of_other_writers_files_declares_them_as_a_described_one_does() {
    let text = TOY.replace(
        "ops = [\"write\", \"read\"]",
        "ops = [\"read\"]\ngiven = { format = \"parquet\", file = \"data.parquet\" }\nfile_sets = true\n\
         artifact_from = \"delta-kernel\"\ndeletion_profiles = [\"dv\"]\nunordered = true",
    );
    let (_dir, path) = manifest(&text);
    let reader = load(&path, WorkerKind::External(0))
        .unwrap()
        .backends
        .remove(0);
    assert_eq!(
        reader.given,
        Some(formatbench_protocol::GivenFile {
            format: "parquet".into(),
            file: "data.parquet".into()
        })
    );
    assert!(reader.file_sets);
    // Its format, unless it names another, is the one it reads as given.
    assert_eq!(reader.format.as_deref(), Some("parquet"));
    let (_dir, path) = manifest(&text.replace("ops = ", "format = \"delta\"\nops = "));
    let declared = load(&path, WorkerKind::External(0)).unwrap();
    assert_eq!(declared.backends[0].format.as_deref(), Some("delta"));
    assert_eq!(reader.table.artifact_from.as_deref(), Some("delta-kernel"));
    assert_eq!(reader.table.deletion_profiles, ["dv"]);
    assert!(reader.table.unordered);
}

#[test]
fn a_command_that_hangs_is_stopped() {
    let err = output_within(
        Path::new("sleep"),
        &["5".to_string()],
        std::time::Duration::from_millis(100),
    )
    .unwrap_err();
    assert!(err.contains("still running after"), "{err}");
}
