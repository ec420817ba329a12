//! Whether a store of the user's own still answers, asked after a failure: a store that went
//! away mid-run (the server killed, the network gone) would otherwise fail every sample left,
//! one by one, each after its client's retries.

use formatbench_protocol::ObjectTarget;
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// How long a connection to the endpoint may take before the store counts as gone.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// `Err(why)` when the store at `target` does not answer: no connection to its endpoint, or
/// one LIST under the run's prefix refused (as checked before the run).
pub fn answers(target: &ObjectTarget) -> Result<(), String> {
    let address = authority(&target.endpoint);
    let ips = address
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {address}: {e}"))?;
    let mut refused = format!("{address} resolves to no address");
    let connected = ips.into_iter().any(|ip| {
        TcpStream::connect_timeout(&ip, CONNECT_TIMEOUT)
            .map_err(|e| refused = format!("cannot connect: {e}"))
            .is_ok()
    });
    if !connected {
        return Err(refused);
    }
    formatbench_s3_client::check_store(target).map_err(|why| {
        // check_store names the endpoint first; the caller names it already.
        why.strip_prefix(&target.endpoint)
            .map_or(why.clone(), |rest| rest.trim_start().to_string())
    })
}

/// `HOST:PORT` of an `http(s)://HOST[:PORT][/…]` endpoint, the scheme's port when it names
/// none.
fn authority(endpoint: &str) -> String {
    let (rest, port) = match endpoint.strip_prefix("https://") {
        Some(rest) => (rest, 443),
        None => (endpoint.strip_prefix("http://").unwrap_or(endpoint), 80),
    };
    let host = rest.split('/').next().unwrap_or(rest);
    // A port follows the last ':' outside an IPv6 literal's brackets.
    let has_port = host
        .rsplit_once(':')
        .is_some_and(|(_, after)| !after.contains(']'));
    if has_port {
        host.to_string()
    } else {
        format!("{host}:{port}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_is_reached_at_its_port_or_its_schemes() {
        assert_eq!(authority("http://127.0.0.1:9000"), "127.0.0.1:9000");
        assert_eq!(authority("https://s3.example.com"), "s3.example.com:443");
        assert_eq!(authority("http://minio/path"), "minio:80");
        assert_eq!(authority("http://[::1]:9000/x"), "[::1]:9000");
        assert_eq!(authority("https://[::1]"), "[::1]:443");
    }

    #[test]
    fn a_closed_port_is_a_store_that_does_not_answer() {
        // A port just bound and released: nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or(1);
        let target = ObjectTarget {
            endpoint: format!("http://127.0.0.1:{port}"),
            bucket: "b".into(),
            key: "run".into(),
            region: "us-east-1".into(),
            objects: Default::default(),
            network: None,
        };
        let why = answers(&target).err().unwrap_or_default();
        assert!(why.starts_with("cannot connect"), "{why}");
    }
}
