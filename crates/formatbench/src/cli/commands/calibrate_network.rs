//! `formatbench calibrate --network [PROFILE…]`: checks that each network profile is the
//! network it names. It starts the S3 server behind the profile exactly as a `--storage s3
//! --network P` run does (namespace, `tbf`, delay line), and beside it one on plain loopback,
//! and sends both the same requests:
//!
//! - round trip: the median of small requests (HEAD, through formatbench's own S3 client) on
//!   one kept-alive connection;
//! - connection set-up: what a fresh connection costs its first request (connect included)
//!   over the same request once it is open, medians over fresh connections ([`fresh_connection`]);
//! - bandwidth: two ranged GETs of one object (the S3 client), of S and S/4 bytes on a warm
//!   connection; the rate is the bytes between them over the time between them, so the round
//!   trip, the server's own time and TCP's ramp cancel out. It is TCP's payload: on any link
//!   of 1,500-byte frames that is 95.6 % of the rate (headers take the rest), as here.
//!
//! Every figure is the profile's less loopback's, so the server's and the client's own work is
//! not counted as network. A figure within 10 % of what the profile names passes (latencies
//! within ±0.05 ms when that is wider: lan's 0.2 ms); anything off makes the exit status 1.

use crate::document::{Block, Cell, Column, Document, Table, Text};
use crate::plan::{Network, Storage, NETWORKS};
use crate::run::storage::ObjectStorage;
use crate::Error;
use formatbench_protocol::ObjectTarget;
use formatbench_s3_client::object_store::aws::AmazonS3;
use formatbench_s3_client::object_store::path::Path as ObjectPath;
use formatbench_s3_client::object_store::{ObjectStoreExt, PutPayload};
use std::path::Path;
use std::time::{Duration, Instant};

/// Requests timed on one kept-alive connection (the round trip): a second's worth, within
/// these bounds (a busy machine's noise is tens of µs, a fifth of lan's round trip).
const KEPT_ALIVE: (usize, usize) = (40, 400);
/// Fresh connections timed (the set-up): half a second's worth, within these bounds.
const FRESH: (usize, usize) = (20, 60);
/// Timed pairs of ranged GETs (the bandwidth).
const TRANSFERS: usize = 3;
const TOLERANCE: f64 = 0.10;
/// The least tolerance of a latency: ±0.05 ms (10 % of lan's 0.2 ms would be below what one
/// wake-up of a loaded machine's scheduler costs).
const LATENCY_FLOOR_S: f64 = 0.05e-3;
/// The bandwidth object holds half a second of the profile's rate, at most this much.
const MAX_OBJECT: u64 = 256 << 20;
const MIN_OBJECT: u64 = 4 << 20;

/// The profiles named (all shaped ones when none is), checked and printed; exit status 0 when
/// every figure is within tolerance, 1 otherwise, 130 when interrupted.
pub fn calibrate(names: &[String], out: &Path) -> Result<i32, Error> {
    let profiles = profiles(names)?;
    crate::run::install_interrupt_handler();
    let scratch = out.join(format!("calibrate-network-{}", std::process::id()));
    let outcome = measure_all(&profiles, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    let Some(rows) = outcome? else {
        return Ok(130);
    };
    let header = format!(
        "network calibration: each profile's server started as `run --storage s3 --network P` \
         starts it; every figure is the profile's less the same requests' to a server on plain \
         loopback ({}-{} kept-alive HEADs, {}-{} fresh connections, {TRANSFERS} pairs of \
         ranged GETs, by profile)",
        KEPT_ALIVE.0, KEPT_ALIVE.1, FRESH.0, FRESH.1
    );
    print!(
        "{}",
        crate::document::terminal_fitted(&document(header, &rows), usize::MAX)
    );
    Ok(if rows.iter().all(Row::ok) { 0 } else { 1 })
}

fn profiles(names: &[String]) -> Result<Vec<Network>, Error> {
    if names.is_empty() {
        return Ok(NETWORKS
            .into_iter()
            .filter(|n| n.shape().is_some())
            .collect());
    }
    names
        .iter()
        .map(|name| {
            let network: Network = name.parse().map_err(Error::Input)?;
            match network.shape() {
                Some(_) => Ok(network),
                None => Err(Error::Input(format!(
                    "--network {name}: loopback as it is has no profile to calibrate"
                ))),
            }
        })
        .collect()
}

/// One checked figure.
struct Row {
    profile: Network,
    quantity: &'static str,
    /// Seconds, or bits per second for bandwidth.
    advertised: f64,
    measured: f64,
    tolerance: f64,
    /// Why a figure is off, where that is known (this machine cannot carry the rate).
    note: Option<String>,
}

impl Row {
    fn ok(&self) -> bool {
        (self.measured - self.advertised).abs() <= self.tolerance
    }

    fn show(&self, value: f64) -> String {
        if self.quantity == "bandwidth" {
            if value >= 1e9 {
                format!("{:.2} Gbit/s", value / 1e9)
            } else {
                format!("{:.0} Mbit/s", value / 1e6)
            }
        } else {
            format!("{:.3} ms", value * 1e3)
        }
    }
}

/// The calibration as a document: what was measured, a row per profile and quantity, then
/// why each figure out of tolerance is off, where that is known.
fn document(header: String, rows: &[Row]) -> Document {
    let columns = [
        "profile",
        "quantity",
        "advertised",
        "measured",
        "error",
        "within tolerance",
    ]
    .into_iter()
    .map(Column::left)
    .collect();
    let lines = rows
        .iter()
        .map(|row| {
            let tolerance = if row.quantity != "bandwidth" && row.tolerance > row.advertised * 0.11
            {
                format!("±{:.2} ms", row.tolerance * 1e3)
            } else {
                format!("±{:.0} %", TOLERANCE * 100.0)
            };
            [
                row.profile.name().to_string(),
                row.quantity.to_string(),
                row.show(row.advertised),
                row.show(row.measured),
                format!("{:+.1} %", (row.measured / row.advertised - 1.0) * 100.0),
                format!("{} ({tolerance})", if row.ok() { "yes" } else { "NO" }),
            ]
            .into_iter()
            .map(Cell::text)
            .collect()
        })
        .collect();
    let mut blocks = vec![
        Block::Text(Text::plain(header)),
        Block::Table(Table::new(columns, lines)),
    ];
    let notes: Vec<Text> = rows
        .iter()
        .filter(|r| !r.ok())
        .filter_map(|r| {
            let note = r.note.as_ref()?;
            Some(Text::plain(format!(
                "{} {}: {note}",
                r.profile.name(),
                r.quantity
            )))
        })
        .collect();
    if !notes.is_empty() {
        blocks.push(Block::Remarks(notes));
    }
    Document {
        title: "network calibration".to_string(),
        summary: None,
        blocks,
    }
}

/// A server behind a network, its client and its objects.
struct Side {
    _storage: ObjectStorage,
    target: ObjectTarget,
    client: AmazonS3,
}

impl Side {
    fn start(network: Network, scratch: &Path) -> Result<Side, Error> {
        std::fs::create_dir_all(scratch)?;
        let storage = ObjectStorage::start_for_run(
            &Storage::S3 { network },
            scratch,
            "calibrate-network",
            None,
        )?
        .ok_or_else(|| Error::Io("no S3 server was started".into()))?;
        let target = storage.target(Path::new(""));
        let client = client(&target)?;
        Ok(Side {
            _storage: storage,
            target,
            client,
        })
    }

    fn path(&self, name: &str) -> ObjectPath {
        self.target.key_of(name).into()
    }
}

fn client(target: &ObjectTarget) -> Result<AmazonS3, Error> {
    formatbench_s3_client::client(target).map_err(Error::Io)
}

fn failed(what: &str) -> impl Fn(formatbench_s3_client::object_store::Error) -> Error + '_ {
    move |e| Error::failed(format!("network calibration: {what}"))(e)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn measure_all(profiles: &[Network], scratch: &Path) -> Result<Option<Vec<Row>>, Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::failed("cannot start a runtime"))?;
    let loopback = Side::start(Network::Local, &scratch.join("local"))?;
    let mut rows = Vec::new();
    for &profile in profiles {
        if crate::run::interrupted() {
            return Ok(None);
        }
        let shaped = Side::start(profile, &scratch.join(profile.name()))?;
        rows.extend(measure(&runtime, profile, &shaped, &loopback)?);
        // `shaped` goes here, with its namespace: one at a time, as a run has one.
    }
    Ok(Some(rows))
}

/// Seconds one request takes.
fn timed<F: std::future::Future>(
    runtime: &tokio::runtime::Runtime,
    request: F,
) -> (f64, F::Output) {
    let started = Instant::now();
    let output = runtime.block_on(request);
    (started.elapsed().as_secs_f64(), output)
}

fn measure(
    runtime: &tokio::runtime::Runtime,
    profile: Network,
    shaped: &Side,
    loopback: &Side,
) -> Result<Vec<Row>, Error> {
    let Some((rtt_ms, mbit)) = profile.shape() else {
        return Ok(Vec::new());
    };
    let (rtt, rate) = (rtt_ms / 1e3, mbit as f64 * 1e6);
    let size = ((rate / 8.0 * 0.5) as u64).clamp(MIN_OBJECT, MAX_OBJECT);
    let object: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    let payload = PutPayload::from(object);
    for side in [shaped, loopback] {
        runtime
            .block_on(
                side.client
                    .put(&side.path("tiny"), PutPayload::from(vec![7u8; 16])),
            )
            .map_err(failed("uploading the small object"))?;
        runtime
            .block_on(side.client.put(&side.path("large"), payload.clone()))
            .map_err(failed("uploading the large object"))?;
    }
    // Round trip: HEADs on each side's kept-alive connection, interleaved so a change in the
    // machine's load falls on both.
    let head = |side: &Side, client: &AmazonS3| -> Result<f64, Error> {
        let (seconds, outcome) = timed(runtime, client.head(&side.path("tiny")));
        outcome.map_err(failed("a HEAD"))?;
        Ok(seconds)
    };
    for _ in 0..3 {
        head(shaped, &shaped.client)?;
        head(loopback, &loopback.client)?;
    }
    let (mut kept_shaped, mut kept_loopback) = (Vec::new(), Vec::new());
    let count =
        |(least, most): (usize, usize), seconds: f64| ((seconds / rtt) as usize).clamp(least, most);
    for _ in 0..count(KEPT_ALIVE, 1.0) {
        kept_shaped.push(head(shaped, &shaped.client)?);
        kept_loopback.push(head(loopback, &loopback.client)?);
    }
    let (kept_shaped, kept_loopback) = (median(kept_shaped), median(kept_loopback));
    // Set-up: what a fresh connection's first request costs over the same request later.
    let (mut fresh_shaped, mut fresh_loopback) = (Vec::new(), Vec::new());
    for _ in 0..count(FRESH, 0.5) {
        fresh_shaped.push(fresh_connection(&shaped.target, false)?);
        fresh_loopback.push(fresh_connection(&loopback.target, true)?);
    }
    let setup = median(fresh_shaped) - median(fresh_loopback);
    // Bandwidth: S and S/4 bytes of the large object, on the warm connections.
    let get = |side: &Side, bytes: u64| -> Result<f64, Error> {
        let (seconds, outcome) = timed(
            runtime,
            side.client.get_range(&side.path("large"), 0..bytes),
        );
        outcome.map_err(failed("a ranged GET"))?;
        Ok(seconds)
    };
    let rate_of = |side: &Side| -> Result<f64, Error> {
        get(side, size / 4)?;
        let (mut whole, mut quarter) = (Vec::new(), Vec::new());
        for _ in 0..TRANSFERS {
            whole.push(get(side, size)?);
            quarter.push(get(side, size / 4)?);
        }
        let seconds = median(whole) - median(quarter);
        Ok((size - size / 4) as f64 * 8.0 / seconds)
    };
    let measured_rate = rate_of(shaped)?;
    let loopback_rate = rate_of(loopback)?;
    let latency_tolerance = (rtt * TOLERANCE).max(LATENCY_FLOOR_S);
    let row = |quantity, advertised, measured, tolerance| Row {
        profile,
        quantity,
        advertised,
        measured,
        tolerance,
        note: None,
    };
    let mut bandwidth = row("bandwidth", rate, measured_rate, rate * TOLERANCE);
    if measured_rate < rate * (1.0 - TOLERANCE) {
        let why = if loopback_rate < rate * (1.0 - TOLERANCE) {
            "this machine cannot carry it"
        } else {
            "this machine's CPU cannot carry it through the namespace (veth, tbf and the delay \
             line, which copies every byte once more)"
        };
        bandwidth.note = Some(format!(
            "{why}: plain loopback, unshaped, carried {:.2} Gbit/s through the same server \
             and client",
            loopback_rate / 1e9
        ));
    }
    Ok(vec![
        row(
            "round trip",
            rtt,
            kept_shaped - kept_loopback,
            latency_tolerance,
        ),
        row("connection set-up", rtt, setup, latency_tolerance),
        bandwidth,
    ])
}

/// What a new connection costs its first request, over the same request's cost once it is
/// open, in seconds: connect, a request, the same request again, on plain TCP (the server's
/// counts need no signature, and object_store cannot connect without sending). On loopback
/// (`settled`) the client waits for the server to accept before the first request, as a real
/// link's handshake gives it time to (the delay line accepts at once, so its server's work
/// is hidden the same way): what remains is the client's own connect, not network.
fn fresh_connection(target: &ObjectTarget, settled: bool) -> Result<f64, Error> {
    let address = target
        .endpoint
        .strip_prefix("http://")
        .unwrap_or(&target.endpoint);
    let fail = |e: std::io::Error| Error::failed(format!("network calibration: {address}"))(e);
    // The last connection's end (the other server's threads closing it) is over first.
    std::thread::sleep(Duration::from_millis(3));
    let connecting = Instant::now();
    let mut stream = std::net::TcpStream::connect(address).map_err(fail)?;
    let connected = connecting.elapsed().as_secs_f64();
    stream.set_nodelay(true).map_err(fail)?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(fail)?;
    let first = if settled {
        std::thread::sleep(Duration::from_millis(2));
        connected + counts(&mut stream, address).map_err(fail)?
    } else {
        counts(&mut stream, address).map_err(fail)?;
        connecting.elapsed().as_secs_f64()
    };
    // The same request once the connection is open: the median of three.
    let mut again = Vec::new();
    for _ in 0..3 {
        again.push(counts(&mut stream, address).map_err(fail)?);
    }
    let again = median(again);
    Ok(first - again)
}

/// Seconds one request for the server's counts takes on a kept-alive connection, to the
/// last byte of the answer.
fn counts(stream: &mut std::net::TcpStream, address: &str) -> std::io::Result<f64> {
    use std::io::{Read, Write};
    // One write, as a client sends a request: `write!` would send it in pieces.
    let request = format!(
        "GET /__formatbench/traffic HTTP/1.1\r\nHost: {address}\r\nContent-Length: 0\r\n\r\n"
    );
    let started = Instant::now();
    stream.write_all(request.as_bytes())?;
    let mut reply = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        let n = stream.read(&mut buffer)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        reply.extend_from_slice(&buffer[..n]);
        let Some(end) = reply.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&reply[..end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        if reply.len() >= end + 4 + length {
            return Ok(started.elapsed().as_secs_f64());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_default_to_every_shaped_one_and_refuse_loopback() {
        let all = profiles(&[]).unwrap_or_default();
        assert_eq!(all, vec![Network::Lan, Network::Region, Network::Internet]);
        assert!(profiles(&["local".into()]).is_err());
        assert!(profiles(&["wan".into()]).is_err());
        assert_eq!(median(vec![3.0, 1.0, 2.0, 10.0]), 2.5);
    }

    #[test]
    fn a_row_is_within_tolerance_by_the_wider_of_ten_percent_and_the_floor() {
        let row = |advertised: f64, measured: f64| Row {
            profile: Network::Lan,
            quantity: "round trip",
            advertised,
            measured,
            tolerance: (advertised * TOLERANCE).max(LATENCY_FLOOR_S),
            note: None,
        };
        assert!(row(0.2e-3, 0.245e-3).ok());
        assert!(!row(0.2e-3, 2.34e-3).ok());
        assert!(row(40e-3, 42.8e-3).ok());
        assert!(!row(40e-3, 44.5e-3).ok());
        let doc = document("network calibration".into(), &[row(0.2e-3, 0.245e-3)]);
        let text = crate::document::terminal_fitted(&doc, usize::MAX);
        assert!(
            text.contains("0.245 ms") && text.contains("±0.05 ms"),
            "{text}"
        );
    }
}
