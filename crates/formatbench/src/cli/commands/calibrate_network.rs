//! `formatbench calibrate --network [PROFILE…]`: checks that each network profile is the
//! network it names. It starts the S3 server behind the profile exactly as a `--storage s3
//! --network P` run does (namespace, `tbf`, delay line), and beside it one on plain loopback,
//! and sends both the same requests through formatbench's own S3 client:
//!
//! - round trip: the median of small requests (HEAD) on one kept-alive connection;
//! - connection set-up: the median first request of fresh connections, less a kept-alive
//!   request's median;
//! - bandwidth: two ranged GETs of one object, of S and S/4 bytes on a warm connection; the
//!   rate is the bytes between them over the time between them, so the round trip, the
//!   server's own time and TCP's ramp cancel out.
//!
//! Every figure is the profile's less loopback's, so the server's and the client's own work is
//! not counted as network. A figure within 10 % of what the profile names passes (latencies
//! within ±0.05 ms when that is wider: lan's 0.2 ms); anything off makes the exit status 1.

use crate::plan::{Network, Storage, NETWORKS};
use crate::run::storage::ObjectStorage;
use crate::Error;
use formatbench_protocol::ObjectTarget;
use formatbench_s3_client::object_store::aws::AmazonS3;
use formatbench_s3_client::object_store::path::Path as ObjectPath;
use formatbench_s3_client::object_store::{ObjectStoreExt, PutPayload};
use std::path::Path;
use std::time::Instant;

/// Requests timed on one kept-alive connection (the round trip).
const KEPT_ALIVE: usize = 40;
/// Fresh connections timed (the set-up).
const FRESH: usize = 15;
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
    println!(
        "network calibration: each profile's server started as `run --storage s3 --network P` \
         starts it; every figure is the profile's less the same requests' to a server on plain \
         loopback ({KEPT_ALIVE} kept-alive HEADs, {FRESH} fresh connections, \
         {TRANSFERS} pairs of ranged GETs)"
    );
    print!("{}", table(&rows));
    for row in rows.iter().filter(|r| !r.ok()) {
        if let Some(note) = &row.note {
            println!("  {} {}: {note}", row.profile.name(), row.quantity);
        }
    }
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

fn table(rows: &[Row]) -> String {
    let mut lines = vec![[
        "profile".to_string(),
        "quantity".into(),
        "advertised".into(),
        "measured".into(),
        "error".into(),
        "within tolerance".into(),
    ]];
    for row in rows {
        let tolerance = if row.quantity != "bandwidth" && row.tolerance > row.advertised * 0.11 {
            format!("±{:.2} ms", row.tolerance * 1e3)
        } else {
            format!("±{:.0} %", TOLERANCE * 100.0)
        };
        lines.push([
            row.profile.name().into(),
            row.quantity.into(),
            row.show(row.advertised),
            row.show(row.measured),
            format!("{:+.1} %", (row.measured / row.advertised - 1.0) * 100.0),
            format!("{} ({tolerance})", if row.ok() { "yes" } else { "NO" }),
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for line in &lines {
        let cells: Vec<String> = line
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        text.push_str(&format!("  {}\n", cells.join("  ").trim_end()));
    }
    text
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
    move |e| Error::Io(format!("network calibration: {what}: {e}"))
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
        .map_err(|e| Error::Io(format!("cannot start a runtime: {e}")))?;
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
    for _ in 0..KEPT_ALIVE {
        kept_shaped.push(head(shaped, &shaped.client)?);
        kept_loopback.push(head(loopback, &loopback.client)?);
    }
    let (kept_shaped, kept_loopback) = (median(kept_shaped), median(kept_loopback));
    // Set-up: the first request of a new client, whose pool has no connection yet.
    let (mut fresh_shaped, mut fresh_loopback) = (Vec::new(), Vec::new());
    for _ in 0..FRESH {
        fresh_shaped.push(head(shaped, &client(&shaped.target)?)?);
        fresh_loopback.push(head(loopback, &client(&loopback.target)?)?);
    }
    let setup = (median(fresh_shaped) - kept_shaped) - (median(fresh_loopback) - kept_loopback);
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
    if measured_rate < rate * (1.0 - TOLERANCE) && loopback_rate < rate * (1.0 - TOLERANCE) {
        bandwidth.note = Some(format!(
            "this machine cannot carry it: plain loopback, unshaped, carried {:.2} Gbit/s \
             through the same server and client",
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
        let text = table(&[row(0.2e-3, 0.245e-3)]);
        assert!(
            text.contains("0.245 ms") && text.contains("±0.05 ms"),
            "{text}"
        );
    }
}
