//! formatbench's own S3 server for a run (`--storage s3`), started before the first artifact is
//! prepared and stopped when the run ends (also on Ctrl-C or an error, by `Drop`; a namespace
//! left by a crash is removed by the next run), and its count of each sample's traffic.

use super::netns;
use super::SampleTraffic;
use crate::plan::Network;
use crate::Error;
use formatbench_protocol::{ObjectTarget, ObjectTraffic};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The bucket every run's objects go to; keys start with the run id.
pub const BUCKET: &str = "formatbench";
const REGION: &str = "us-east-1";
/// How long a server may take to listen.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// A running S3 server and where workers reach it.
pub struct Server {
    network: Network,
    root: PathBuf,
    key_prefix: String,
    server: Child,
    address: SocketAddr,
    namespace: Option<netns::Namespace>,
    log: PathBuf,
}

impl Server {
    pub fn pid(&self) -> u32 {
        self.server.id()
    }

    /// Starts the server behind `network`.
    pub fn start(
        network: Network,
        scratch: &Path,
        run_id: &str,
        listen: Option<String>,
    ) -> Result<Server, Error> {
        netns::remove_stale();
        let root = scratch.join("s3");
        std::fs::create_dir_all(root.join(BUCKET))?;
        set_credentials(run_id);
        let namespace = match network.shape() {
            None => None,
            Some((_, mbit)) => Some(netns::Namespace::create(mbit).map_err(|why| {
                Error::Unavailable(format!(
                    "--network {}: unavailable here: {why} (--network local always works)",
                    network.name()
                ))
            })?),
        };
        let log = scratch.join("s3-server.log");
        let (server, address) = spawn(&root, network, namespace.as_ref(), listen.as_deref(), &log)?;
        crate::progress::say(&format!(
            "object storage: formatbench's S3 server, network {} ({})",
            network.name(),
            network.describe()
        ));
        Ok(Server {
            network,
            root,
            key_prefix: run_id.to_string(),
            server,
            address,
            namespace,
            log,
        })
    }

    /// The object target of a job's artifact at `relative` (a path below the scratch).
    pub fn target(&self, relative: &Path) -> ObjectTarget {
        let base = ObjectTarget {
            endpoint: format!("http://{}", self.address),
            bucket: BUCKET.into(),
            key: self.key_prefix.clone(),
            region: REGION.into(),
            objects: Default::default(),
            network: Some(self.network.coalescing_shape()),
        };
        super::below(base, relative)
    }

    /// Removes the objects under a target (a write sample's output), on the server's disk:
    /// those stored under stand-ins for long keys too.
    pub fn remove(&self, target: &ObjectTarget) {
        formatbench_s3::remove_under(&self.root.join(BUCKET), &target.key);
    }

    /// Starts a new traffic window, restarting a server that died since the last sample;
    /// returns what happened to it, if anything.
    pub fn begin_sample(&mut self) -> Result<Option<String>, Error> {
        let restarted = match self.server.try_wait() {
            Ok(Some(status)) => {
                // On the same address, so the endpoint every job names stays true.
                let address = self.address.to_string();
                let (server, address) = spawn(
                    &self.root,
                    self.network,
                    self.namespace.as_ref(),
                    Some(&address),
                    &self.log,
                )?;
                self.server = server;
                self.address = address;
                Some(format!("the S3 server had exited ({status}); restarted"))
            }
            _ => None,
        };
        self.traffic(true)?;
        Ok(restarted)
    }

    /// The traffic since `begin_sample`, split where the worker's first call ended when it
    /// said (`first_call_ended`, Unix seconds), or why there is none (the server died
    /// mid-sample).
    pub fn end_sample(&mut self, first_call_ended: Option<f64>) -> Result<SampleTraffic, String> {
        if let Ok(Some(status)) = self.server.try_wait() {
            return Err(format!("the S3 server exited during the sample ({status})"));
        }
        let counts = match first_call_ended {
            Some(at) => self
                .ask("GET", &format!("?split={at}"))
                .map(|split| SampleTraffic::Split(Box::new(split))),
            None => self.ask("GET", "").map(SampleTraffic::Whole),
        };
        counts.map_err(|e| e.to_string())
    }

    /// The server's window, as JSON over one plain HTTP request; `reset` starts a new one.
    fn traffic(&self, reset: bool) -> Result<ObjectTraffic, Error> {
        self.ask(if reset { "POST" } else { "GET" }, "")
    }

    fn ask<T: serde::de::DeserializeOwned>(&self, method: &str, query: &str) -> Result<T, Error> {
        let fail = |e: std::io::Error| Error::failed("cannot ask the S3 server for its counts")(e);
        let mut stream =
            TcpStream::connect_timeout(&self.address, Duration::from_secs(5)).map_err(fail)?;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(fail)?;
        write!(
            stream,
            "{method} /__formatbench/traffic{query} HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.address
        )
        .map_err(fail)?;
        let mut reply = String::new();
        stream.read_to_string(&mut reply).map_err(fail)?;
        let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        serde_json::from_str(body).map_err(Error::failed("the S3 server's counts are not readable"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
        // The namespace goes with `self.namespace` (its own Drop).
    }
}

/// The run's own credentials, for the server and every worker (which inherit them).
fn set_credentials(run_id: &str) {
    // Set before any worker or server thread starts; the runner is single-threaded here.
    std::env::set_var("AWS_ACCESS_KEY_ID", format!("formatbench-{run_id}"));
    std::env::set_var(
        "AWS_SECRET_ACCESS_KEY",
        format!("secret-{run_id}-{}", std::process::id()),
    );
    std::env::set_var("AWS_REGION", REGION);
    std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
    std::env::remove_var("AWS_SESSION_TOKEN");
}

/// The server program: `FORMATBENCH_S3_SERVER` when set (a build of `formatbench-s3`), else
/// this binary's `__s3-server`.
fn server_program() -> Result<(PathBuf, Vec<String>), Error> {
    if let Some(program) = std::env::var_os("FORMATBENCH_S3_SERVER") {
        return Ok((PathBuf::from(program), Vec::new()));
    }
    let exe =
        std::env::current_exe().map_err(Error::failed("cannot locate the formatbench binary"))?;
    Ok((exe, vec![crate::run::S3_SERVER_ARG.into()]))
}

fn spawn(
    root: &Path,
    network: Network,
    namespace: Option<&netns::Namespace>,
    listen: Option<&str>,
    log: &Path,
) -> Result<(Child, SocketAddr), Error> {
    let (program, prefix) = server_program()?;
    let ready = root.with_extension("ready");
    let _ = std::fs::remove_file(&ready);
    let listen = match (listen, namespace) {
        (Some(address), _) => address.to_string(),
        (None, Some(ns)) => format!("{}:0", ns.server_ip()),
        (None, None) => "127.0.0.1:0".into(),
    };
    let mut command = match namespace {
        Some(ns) => {
            let mut c = Command::new("ip");
            c.args(["netns", "exec"]).arg(ns.name()).arg(&program);
            c
        }
        None => Command::new(&program),
    };
    command
        .args(&prefix)
        .arg("--root")
        .arg(root)
        .arg("--listen")
        .arg(&listen);
    command.arg("--ready").arg(&ready);
    if let Some((rtt_ms, _)) = network.shape() {
        command.arg("--rtt-ms").arg(rtt_ms.to_string());
    }
    let log_file = std::fs::File::create(log)?;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log_file);
    let mut child = command.spawn().map_err(|e| {
        Error::Input(format!(
            "cannot start the S3 server {}: {e}",
            program.display()
        ))
    })?;
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&ready) {
            if let Ok(address) = text.trim().parse::<SocketAddr>() {
                return Ok((child, address));
            }
        }
        if let Ok(Some(status)) = child.try_wait() {
            let said = std::fs::read_to_string(log).unwrap_or_default();
            let said = said
                .lines()
                .last()
                .unwrap_or("no message")
                .trim()
                .to_string();
            return Err(Error::Input(format!(
                "the S3 server did not start ({status}): {said}"
            )));
        }
        if started.elapsed() > START_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::Input(format!(
                "the S3 server did not listen within {} s",
                START_TIMEOUT.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
