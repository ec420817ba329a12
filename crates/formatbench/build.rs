//! Records the compiler's version for the environment block of results.
fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    println!("cargo:rustc-env=FORMATBENCH_RUSTC={}", version.trim());
    let profile = std::env::var("PROFILE").unwrap_or_default();
    println!("cargo:rustc-env=FORMATBENCH_BUILD_PROFILE={profile}");
    println!("cargo:rerun-if-changed=build.rs");
}
