//! The commands a manifest names, run directly with a time limit: its version command, and
//! the `--describe` runs of `workers check` (neither is measured).

use std::path::Path;

/// How long a version command may take: it runs whenever the manifest is loaded.
const VERSION_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// `program args`' output, started directly (it is not measured: a version command, a
/// `--describe`), killed past `limit`.
pub fn output_within(
    program: &Path,
    args: &[String],
    limit: std::time::Duration,
) -> Result<std::process::Output, String> {
    use std::process::Stdio;
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start it: {e}"))?;
    // Read on threads of their own, so a full pipe never stalls the child before its exit.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "still running after {} s: stopped",
                    limit.as_secs()
                ));
            }
            // Fine steps at first: `workers check` times a `--describe` with this.
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(
                if started.elapsed().as_millis() < 200 {
                    1
                } else {
                    10
                },
            )),
            Err(e) => return Err(format!("cannot wait for it: {e}")),
        }
    };
    Ok(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// The first line a version command prints.
pub(super) fn version_of(words: &[String]) -> Result<String, String> {
    let (program, args) = words
        .split_first()
        .ok_or_else(|| "`version` is empty".to_string())?;
    let output = output_within(Path::new(program), args, VERSION_LIMIT)
        .map_err(|e| format!("its version command `{program}`: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "its version command `{program}` failed: {}",
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or("no message")
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.lines().next().map(str::trim) {
        Some(line) if !line.is_empty() => Ok(line.to_string()),
        _ => Err(format!("its version command `{program}` printed nothing")),
    }
}
