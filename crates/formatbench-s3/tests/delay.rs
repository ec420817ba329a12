//! The delay line (`--rtt-ms`) as a client sees it, on plain loopback (no namespace, no root):
//! a new connection's first request waits a handshake's round trip and its own, as on a real
//! link, and no request on a kept-alive connection is answered in less than a round trip.
//! Only lower bounds are asserted: they hold however loaded the machine is (how close the line
//! comes to its round trip is `formatbench calibrate --network`'s to measure).
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const RTT: Duration = Duration::from_millis(100);

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(root: &std::path::Path) -> (Server, String) {
    let ready = root.join("ready");
    let server = Server(
        Command::new(env!("CARGO_BIN_EXE_formatbench-s3"))
            .arg("--root")
            .arg(root)
            .args(["--listen", "127.0.0.1:0", "--ready"])
            .arg(&ready)
            .args(["--rtt-ms", &RTT.as_millis().to_string()])
            .env("AWS_ACCESS_KEY_ID", "delay-test-key")
            .env("AWS_SECRET_ACCESS_KEY", "delay-test-secret")
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while !ready.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the server did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let address = std::fs::read_to_string(&ready).unwrap().trim().to_string();
    (server, address)
}

/// Sends one request for the server's counts (it needs no signature) on a kept-alive
/// connection; returns when its first response byte arrived, having read the whole response.
fn request(stream: &mut TcpStream, address: &str) -> Instant {
    write!(
        stream,
        "GET /__formatbench/traffic HTTP/1.1\r\nHost: {address}\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut reply = Vec::new();
    let mut buffer = [0u8; 4096];
    let mut first = None;
    loop {
        let n = stream.read(&mut buffer).unwrap();
        assert!(n > 0, "the connection closed mid-response");
        first.get_or_insert_with(Instant::now);
        reply.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&reply);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse().ok())?
                })
                .expect("a Content-Length");
            if body.len() >= length {
                assert!(head.starts_with("HTTP/1.1 200"), "{head}");
                return first.unwrap();
            }
        }
    }
}

#[test]
fn a_new_connections_first_request_waits_for_the_handshake_then_its_round_trip() {
    let root = tempfile::tempdir().unwrap();
    let (_server, address) = start(root.path());
    for _ in 0..3 {
        let connecting = Instant::now();
        let mut stream = TcpStream::connect(&address).unwrap();
        stream.set_nodelay(true).unwrap();
        let answered = request(&mut stream, &address);
        // The handshake's round trip, then the request's: nothing crossed before the first.
        assert!(
            answered - connecting >= 2 * RTT,
            "a new connection's first request was answered after {:?}, under two round trips \
             of {RTT:?}",
            answered - connecting
        );
    }
}

#[test]
fn no_request_on_a_kept_alive_connection_is_answered_in_under_a_round_trip() {
    let root = tempfile::tempdir().unwrap();
    let (_server, address) = start(root.path());
    let mut stream = TcpStream::connect(&address).unwrap();
    stream.set_nodelay(true).unwrap();
    request(&mut stream, &address);
    for _ in 0..5 {
        let sent = Instant::now();
        let answered = request(&mut stream, &address);
        assert!(
            answered - sent >= RTT,
            "answered after {:?}, under the round trip of {RTT:?}",
            answered - sent
        );
    }
}
