//! The network namespace a shaped profile puts the S3 server in: `fbs3-PID`, joined to this
//! one by a veth pair (`fbs3hPID` here, `fbs3nPID` there) whose two ends the kernel shapes
//! with `tbf` to the profile's bandwidth. Needs root and iproute2; everything stays on this
//! machine. Names carry formatbench's pid, so a namespace whose process is gone is stale.

use std::process::Command;

const PREFIX: &str = "fbs3-";

pub struct Namespace {
    pid: u32,
}

/// Runs `program args` (`ip` or `tc`), inside `namespace` when given.
fn run(namespace: Option<&str>, program: &str, args: &[&str]) -> Result<(), String> {
    let mut command = match namespace {
        Some(ns) => {
            let mut c = Command::new("ip");
            c.args(["netns", "exec", ns, program]);
            c
        }
        None => Command::new(program),
    };
    let output = command
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {program}: {e} (iproute2 is needed)"))?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    Err(format!(
        "`{program} {}` failed: {}",
        args.join(" "),
        said.trim()
    ))
}

fn ip(args: &[&str]) -> Result<(), String> {
    run(None, "ip", args)
}

impl Namespace {
    pub fn create(mbit: u64) -> Result<Namespace, String> {
        // SAFETY: geteuid only reads this process's credentials.
        if unsafe { libc::geteuid() } != 0 {
            return Err("a network namespace needs root".into());
        }
        let namespace = Namespace {
            pid: std::process::id(),
        };
        namespace
            .set_up(mbit)
            .inspect_err(|_| namespace.tear_down())?;
        Ok(namespace)
    }

    pub fn name(&self) -> String {
        format!("{PREFIX}{}", self.pid)
    }

    fn host_link(&self) -> String {
        format!("fbs3h{}", self.pid)
    }

    fn ns_link(&self) -> String {
        format!("fbs3n{}", self.pid)
    }

    /// A /30 of 10.213.0.0/16 picked by pid, so two runs' namespaces do not clash.
    fn subnet(&self) -> (String, String) {
        let n = self.pid % 16_000;
        let (third, fourth) = (n / 64, (n % 64) * 4);
        (
            format!("10.213.{third}.{}", fourth + 1),
            format!("10.213.{third}.{}", fourth + 2),
        )
    }

    pub fn server_ip(&self) -> String {
        self.subnet().1
    }

    fn set_up(&self, mbit: u64) -> Result<(), String> {
        let (name, host, inside) = (self.name(), self.host_link(), self.ns_link());
        let (host_ip, ns_ip) = self.subnet();
        ip(&["netns", "add", &name])?;
        ip(&[
            "link", "add", &host, "type", "veth", "peer", "name", &inside,
        ])?;
        ip(&["link", "set", &inside, "netns", &name])?;
        ip(&["addr", "add", &format!("{host_ip}/30"), "dev", &host])?;
        ip(&["link", "set", &host, "up"])?;
        let inside_ip = |args: &[&str]| run(Some(&name), "ip", args);
        inside_ip(&["addr", "add", &format!("{ns_ip}/30"), "dev", &inside])?;
        inside_ip(&["link", "set", &inside, "up"])?;
        inside_ip(&["link", "set", "lo", "up"])?;
        // tbf's bucket holds at least a 64 KiB segment (veth offloads segmentation) and 4 ms
        // of the rate.
        let burst = ((mbit * 1_000_000 / 8) / 250).max(64 * 1024).to_string();
        let rate = format!("{mbit}mbit");
        let shape = |namespace: Option<&str>, link: &str| {
            let tbf = ["qdisc", "add", "dev", link, "root", "tbf", "rate", &rate];
            run(
                namespace,
                "tc",
                &[&tbf[..], &["burst", &burst, "latency", "100ms"]].concat(),
            )
        };
        shape(None, &host)?;
        shape(Some(&name), &inside)
    }

    fn tear_down(&self) {
        let _ = ip(&["link", "del", &self.host_link()]);
        let _ = ip(&["netns", "del", &self.name()]);
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        self.tear_down();
    }
}

/// Removes namespaces (and their links) of formatbench processes that are gone.
pub fn remove_stale() {
    let Ok(output) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let Some(pid) = name
            .strip_prefix(PREFIX)
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: signal 0 only checks that the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        if !alive {
            // Dropping it removes its link and the namespace.
            drop(Namespace { pid: pid as u32 });
        }
    }
}
