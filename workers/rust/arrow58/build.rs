//! With the `duckdb` feature the worker links the prebuilt libduckdb.so in DUCKDB_LIB_DIR; the
//! binary finds it at run time beside itself (the build script copies it there) or in that
//! directory (both are on its rpath).
fn main() {
    println!("cargo:rerun-if-env-changed=DUCKDB_LIB_DIR");
    if std::env::var_os("CARGO_FEATURE_DUCKDB").is_none() {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN");
    if let Some(dir) = std::env::var_os("DUCKDB_LIB_DIR") {
        let dir = std::path::PathBuf::from(dir);
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{}", dir.display());
    }
}
