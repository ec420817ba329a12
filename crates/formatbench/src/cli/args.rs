use crate::plan::{Network, StorageChoice};
use crate::results::{CacheChoice, CallMode, Prefer};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Which storage format, layout and reader is fastest and smallest for this data, on this machine?
#[derive(Debug, Parser)]
#[command(name = "formatbench", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Only errors on stderr (the summary still goes to stdout).
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// A line per sample on stderr.
    #[arg(long, short, global = true)]
    pub verbose: bool,
    /// A worker outside this repository: its manifest (TOML: the command that starts it and
    /// the `ext-` backends it runs; docs/protocol.md §9). Repeat for several. The command is
    /// yours: formatbench runs it as it runs every worker, and fetches nothing.
    #[arg(long = "worker", value_name = "MANIFEST", global = true)]
    pub workers: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a benchmark: the built-in `default` suite, a generated dataset (--dataset) or your
    /// own file (--input).
    Run(RunArgs),
    /// Run a suite: a built-in (default, featherstore, layouts, delta, stores, egress, delta-s3,
    /// r-study, scale-out) or a TOML file.
    Suite {
        /// Built-in suite name or path to a suite TOML file.
        name: String,
        #[command(flatten)]
        args: RunArgs,
    },
    /// Which logical types survive a write and a read through each backend and target: a table
    /// with one column per type (or the first rows of --input), each column verified through
    /// every backend; nothing is timed. Writes fidelity.md and fidelity.json, and the matrix
    /// into the run's report.md and report.html.
    Fidelity(RunArgs),
    /// List the dataset generators and built-in suites.
    Datasets,
    /// List the backends, their profiles and operations, and why any cannot run here.
    Backends,
    /// Regenerate report.md and report.html from results.jsonl; several run directories are
    /// pooled when they come from the same commit with a clean tree.
    Report {
        /// Run directories (each holding results.jsonl).
        #[arg(required = true)]
        run_dirs: Vec<PathBuf>,
        /// Where to write the reports (default: the first run directory).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Pool runs even when their source tree was dirty.
        #[arg(long)]
        allow_dirty: bool,
        /// Which call ranks: `warm` or `first` (default: what the run chose).
        #[arg(long, value_enum)]
        call: Option<CallMode>,
        /// What the recommendation optimises for (default: what the run chose): read, write,
        /// size or balanced.
        #[arg(long, value_enum)]
        prefer: Option<Prefer>,
        /// The competitor the heat map compares everyone with, as BACKEND/PROFILE of one the
        /// run measured (default: what the run chose).
        #[arg(long, value_name = "BACKEND/PROFILE")]
        reference: Option<String>,
        /// Also write a compact Markdown report to FILE: the answer and one narrow table per
        /// operation, no relative links, for pasting into an issue.
        #[arg(long, value_name = "FILE")]
        export_markdown: Option<PathBuf>,
    },
    /// Set the lines of a run's results.jsonl that are no records (corrupt, cut off) aside in
    /// results.jsonl.unreadable-N, keeping every record, so `report` and `--resume` read it again.
    Repair {
        /// The run directory (holding results.jsonl).
        run_dir: PathBuf,
    },
    /// Compare two runs cell by cell (NEW ÷ BASE with a 95 % interval and a verdict), or a run
    /// with a saved baseline (--baseline NAME NEW). Exit 1 with --fail-on regression when a
    /// cell got slower beyond the threshold or failed in NEW; 2 for bad input.
    Compare(CompareArgs),
    /// Every run kept, followed: each cell's median over the runs (in commit order, runs on
    /// other machines apart), the runs where it changed flagged by `compare`'s rule. Writes
    /// history.md, history.html (with a chart per operation) and history.{csv,json,parquet}.
    History {
        /// Run directories, or results directories (`run --out`) whose runs are all taken.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// Where the history is written.
        #[arg(long, default_value = "formatbench-history")]
        out: PathBuf,
        /// Changes within ±this are `no change` (e.g. 5% or 0.05), as in `compare`.
        #[arg(long, default_value = "5%", value_name = "PERCENT")]
        threshold: String,
        /// Which call the runs are followed by: `warm` or `first` (default: what each chose).
        #[arg(long, value_enum)]
        call: Option<CallMode>,
    },
    /// Workers outside this repository, each registered by its manifest (docs/protocol.md §9):
    /// add, list, remove, and check one against the protocol.
    Workers {
        #[command(subcommand)]
        action: WorkersAction,
    },
    /// Manage the peers (Python and R workers) that run beside the native backends.
    Peers {
        #[command(subcommand)]
        action: PeersAction,
    },
    /// Check the measurements on this machine: recover a known CPU-time ratio (2×) and a known
    /// allocation (512 MiB) through the normal runner.
    Calibrate {
        /// Balanced blocks to run (each is 2n rounds): the most it takes when adaptive.
        #[arg(long, default_value_t = 2)]
        rounds: u32,
        /// Stop adaptively as `run --precision` does (e.g. 5%), to check that the known ratios
        /// are still recovered under adaptive stopping.
        #[arg(long, value_name = "PERCENT")]
        precision: Option<String>,
        /// Where the calibration run is written.
        #[arg(long, default_value = "formatbench-results")]
        out: PathBuf,
        /// Check the network profiles instead (all shaped ones when none is named): round
        /// trip, connection set-up and bandwidth of each, against what it names.
        #[arg(long, value_name = "PROFILE", num_args = 0.., value_delimiter = ',')]
        network: Option<Vec<String>>,
    },
}

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// BASE and NEW run directories; with --baseline, NEW alone.
    #[arg(value_name = "RUN_DIR", required = true, num_args = 1..=2)]
    pub runs: Vec<PathBuf>,
    /// Compare NEW with the run saved as this baseline (`run --save-baseline NAME`).
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// The results directory (`run --out`) holding `baselines/`. Default: the one NEW's run
    /// directory is in, else formatbench-results.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Changes within ±this are `no change` (e.g. 5% or 0.05).
    #[arg(long, default_value = "5%", value_name = "PERCENT")]
    pub threshold: String,
    /// Exit 1 when any cell is `slower` beyond the threshold or `failed in NEW`.
    #[arg(long, value_parser = ["regression"])]
    pub fail_on: Option<String>,
    /// Which call both runs are compared by: `warm` or `first` (default: what BASE chose).
    #[arg(long, value_enum)]
    pub call: Option<CallMode>,
    /// Write the comparison as Markdown (short: one row per changed cell on big suites).
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Write the comparison as one self-contained HTML page with a before/after chart.
    #[arg(long, value_name = "FILE")]
    pub export_html: Option<PathBuf>,
    /// Write the comparison as JSON, with each run's recommendation, Pareto frontier and
    /// geometric means.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum WorkersAction {
    /// Register a manifest for every later command, as if each were given `--worker PATH`
    /// (kept in the user's configuration: `$XDG_CONFIG_HOME/formatbench/workers.toml`).
    Add { manifest: PathBuf },
    /// Forget a registered manifest.
    Remove { manifest: PathBuf },
    /// The registered manifests, their commands and backends, or why one cannot be loaded.
    List,
    /// Run every operation a manifest declares, in each of its profiles, once on a small
    /// generated table (mixed, or a feature matrix for matrix operations) through the normal
    /// runner, verify each result, and check the timing protocol (start-up outside the timer,
    /// warm calls, the 50 ms rule, timed parts within their calls): one line per problem, exit
    /// 1 when there is any.
    Check {
        manifest: PathBuf,
        /// Rows of the generated mixed table.
        #[arg(long, default_value_t = 2_000)]
        rows: u64,
        /// Where the check's run directory goes (default: a temporary one, removed after).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Write the Python SDK (the `formatbench_worker` package this binary's peers run, with
    /// its pyproject.toml) into a new or empty directory, for `pip install DIR`.
    Sdk { dir: PathBuf },
}

#[derive(Debug, Subcommand)]
pub enum PeersAction {
    /// Create the Python peers' virtual environment outside the repository (see `peers path`)
    /// and install the pinned libraries into it; report the R peers.
    Install {
        /// The Python 3.11 interpreter that creates the environment.
        #[arg(long)]
        python: Option<PathBuf>,
    },
    /// Print where the peers' environment lives.
    Path,
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Generate this dataset: mixed, long, features or text.
    #[arg(long, conflicts_with = "input")]
    pub dataset: Option<String>,
    /// Rows of the generated dataset (in a suite: of its scaled dataset); several, comma-separated
    /// (`1e5,1e6,5e6`), run one dataset per size and report how each competitor's time grows.
    #[arg(long, value_delimiter = ',', value_parser = row_count)]
    pub rows: Option<Vec<u64>>,
    /// How generated values are spread: random (the studies' tables, the default) or realistic
    /// (nulls, skewed and low-cardinality values, sorted and clustered columns, rounded
    /// numbers); `random,realistic` runs both and reports how each format moves.
    #[arg(long, value_delimiter = ',', value_parser = shape)]
    pub shape: Option<Vec<crate::datasets::Shape>>,
    /// `mixed`: columns of each of the six types.
    #[arg(long)]
    pub per_type: Option<usize>,
    /// `features`: number of float32 feature columns.
    #[arg(long)]
    pub features: Option<usize>,
    /// Benchmark your own CSV, Parquet or Arrow IPC file: read as it is (profile `as-given`)
    /// beside its re-encodings. `s3://BUCKET/KEY` with `--endpoint` reads an object in place
    /// on your store (credentials from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`); nothing
    /// is written there.
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// With --input: the integer column `range` selects by (otherwise by position).
    #[arg(long, requires = "input")]
    pub index: Option<String>,
    /// The row-group sweep: the native `parquet` backend's file is also re-written with these
    /// rows per row group (`10k,100k,1M`; k, M, G count thousands), each file a competitor of
    /// its own, read (never timed writing) beside the default file and the --input file as
    /// given; the report's row-group sweep table sets their read times and bytes against their
    /// sizes. Every other chosen reader of shared Parquet files (`backends` says which: the
    /// Parquet peers and the cluster peers) reads the same files too. Works on generated
    /// datasets too.
    #[arg(long, value_delimiter = ',', value_parser = group_rows, value_name = "ROWS")]
    pub row_group_rows: Option<Vec<u64>>,
    /// The sweep, by size: row groups of about this much of the source's Arrow data each
    /// (`8MiB,128MiB`; Spark's and parquet-mr's unit, which count encoded bytes), turned into
    /// rows per dataset (the `row_group_rows` key). A size on the command line, in rows or
    /// bytes, replaces the suite's sizes. Default: the suite's.
    #[arg(long, value_delimiter = ',', value_parser = group_bytes, value_name = "SIZE")]
    pub row_group_bytes: Option<Vec<u64>>,
    /// The sweep, by files: the table cut into this many Parquet files of consecutive rows
    /// (`1,16`; its own `parquet_files` key), written once by the native writer and read by
    /// every chosen reader of shared Parquet files, the cluster peers included. Default: the
    /// suite's.
    #[arg(long, value_delimiter = ',', value_parser = file_count, value_name = "N")]
    pub parquet_files: Option<Vec<u64>>,
    /// The row-group sweep: each of its files also re-written sorted by COLUMN (with no
    /// --row-group-rows, the default size sorted). A sorted file's reads are verified as sets
    /// of rows; `take` and ranges by position are unsupported on it (a position names another
    /// row there), ranges by --index value run.
    #[arg(long, value_name = "COLUMN")]
    pub sort_by: Option<String>,
    /// With --input: cast every float64 column to float32 as the file is read in, so a float64
    /// feature matrix (scikit-learn's default) enters the matrix operations and the array
    /// layout; the cast is stated and recorded with the dataset.
    #[arg(long, requires = "input", value_parser = ["float32"])]
    pub feature_type: Option<String>,
    /// Seed of the generators and of the columns and rows operations choose.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Comma-separated backends and groups: all (native and peers), native (builtin and heavy),
    /// builtin (inside this binary), heavy (the workers on other Arrow majors), peers.
    #[arg(long, value_delimiter = ',')]
    pub backends: Option<Vec<String>>,
    /// Comma-separated profiles (e.g. default,compact), or "all".
    #[arg(long, value_delimiter = ',')]
    pub profiles: Option<Vec<String>>,
    /// Comma-separated in-memory targets (arrow, pandas, polars), or "all"; by default each
    /// backend's own (the first it lists).
    #[arg(long, value_delimiter = ',')]
    pub targets: Option<Vec<String>>,
    /// Comma-separated layouts (wide, array), or "all"; by default the suite's, else wide.
    #[arg(long, value_delimiter = ',')]
    pub layouts: Option<Vec<String>>,
    /// Comma-separated operations (write, read, scan, project, range, take; matrix,
    /// random_rows, feature_project, mixed, vector_norm; first_row; range_before, range_after,
    /// range_between, labels, append, insert, update), "all" (the table operations), "features"
    /// (the five on feature matrices), "delta" (first_row, read, scan, project) or "store"
    /// (FeatherStore's table benchmark: write, read, scan, project, the three ranges, labels,
    /// append, insert, update).
    #[arg(long, value_delimiter = ',')]
    pub ops: Option<Vec<String>>,
    /// Tables of files (Delta): files each table is cut into (one deleted row per file in a
    /// deletion profile); by default the suite's, else 200.
    #[arg(long)]
    pub files: Option<u64>,
    /// Tables of files: the queries one `session` runs on its opened table (the projection,
    /// each planned and executed); by default the suite's, else 6.
    #[arg(long)]
    pub queries: Option<u64>,
    /// Balanced blocks to measure: each is 2n rounds for n competitors, so every competitor
    /// takes every position twice (a cell gets 2n × K samples).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Adaptive stopping: after each complete round, a group stops once every competitor's
    /// paired ratio to its fastest has a 95 % interval within this (e.g. 5%), or "off".
    /// Default: the suite's; 5% when only --budget is given; off for --rounds or --samples.
    #[arg(long, value_name = "PERCENT")]
    pub precision: Option<String>,
    /// Adaptive stopping: seconds of measuring for the whole run (e.g. 60s, 2m), shared among
    /// the groups by their competitors; a group stops after the round that spends its share.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<String>,
    /// At most this many measured samples per cell: the balanced design is cut after this many
    /// rounds (each round is still a full permutation). For runs with many competitors.
    #[arg(long)]
    pub samples: Option<u32>,
    /// Repeat short operations inside a sample until it lasts this long (cold reads never repeat).
    #[arg(long, default_value_t = crate::plan::DEFAULT_MIN_SAMPLE_S * 1000.0)]
    pub min_sample_ms: f64,
    /// Page-cache state of reads: warm (files read just before), cold (evicted), or both.
    #[arg(long, value_enum, default_value_t)]
    pub cache: CacheChoice,
    /// Where artifacts live: `local` files; `s3`: an S3 server formatbench starts on this
    /// machine (requests, bytes and egress measured by the server per sample); or
    /// `s3://BUCKET/PREFIX` with `--endpoint`: a store of your own (the run writes under
    /// PREFIX/RUN_ID/ and removes it at the end). Default: the suite's, else local.
    #[arg(long)]
    pub storage: Option<StorageChoice>,
    /// Network between the workers and the S3 server: local (loopback), lan (0.2 ms, 10 Gbit/s),
    /// region (5 ms, 1 Gbit/s) or internet (40 ms, 200 Mbit/s). Profiles other than local need
    /// root (a network namespace and a veth pair shaped by the kernel). Default: the suite's,
    /// else local. Several, comma-separated (`lan,region,internet`), run one after another,
    /// each with its own server, and are then reported together (`RUN-networks/`).
    #[arg(long, value_delimiter = ',')]
    pub network: Option<Vec<Network>>,
    /// With `--storage s3://BUCKET/PREFIX` or `--input s3://BUCKET/KEY`: the store's S3 API
    /// (`http://HOST:PORT`);
    /// credentials from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`.
    #[arg(long)]
    pub endpoint: Option<String>,
    /// The address formatbench's S3 server listens on (default: a free loopback port).
    #[arg(long)]
    pub s3_listen: Option<String>,
    /// Dollars per GB (2^30 bytes) of egress from the bucket, for the report's cost per use
    /// (seed 004's list price by default).
    #[arg(long, default_value_t = crate::stats::DEFAULT_EGRESS_PRICE_PER_GB)]
    pub egress_price: f64,
    /// Untimed runs per cell before the measured ones; the first also verifies the result.
    #[arg(long)]
    pub warmup: Option<u32>,
    /// Thread cap for every backend: 1, N, or all (this machine's cores).
    #[arg(long, default_value = "all", value_parser = thread_cap)]
    pub threads: u32,
    /// Cluster peers (`py-dask-parquet`, …): the executor processes of the cluster each sample
    /// starts, one competitor per count (`1,2,4`), each its own `executors` key; the thread
    /// cap is each executor's. Other backends run in one process whatever this says.
    /// Default: the suite's, else 1.
    #[arg(long, value_delimiter = ',', value_parser = executor_count, value_name = "N")]
    pub executors: Option<Vec<u32>>,
    /// Cluster peers: the memory cap of each executor, e.g. 1GiB (the engine spills or fails
    /// past it; recorded in the results). Default: the engine's own.
    #[arg(long, value_name = "SIZE")]
    pub executor_memory: Option<String>,
    /// Cluster peers: attach to a cluster you run instead of starting one for each sample:
    /// `dask://HOST:PORT` (a Dask scheduler), `ray://HOST:PORT` (a Ray cluster's head, which
    /// this machine joins as a driver), `spark://HOST:PORT` (a Spark master). `--executors` must say how many executors
    /// it has (a sample on a cluster with another count fails); only the driver's process is
    /// accounted, and the results say so. Peers of the other engines skip their cells.
    #[arg(long, value_name = "URL", value_parser = cluster_url)]
    pub cluster: Option<String>,
    /// Seconds a sample may take before its worker is killed.
    #[arg(long, default_value_t = 600.0)]
    pub timeout: f64,
    /// Address space each worker may map, e.g. 8GiB (as `prlimit --as`): a worker past it
    /// fails its sample instead of pushing the machine into swap. Default: uncapped.
    #[arg(long, value_name = "SIZE")]
    pub memory_limit: Option<String>,
    /// Where run directories are written.
    #[arg(long, default_value = "formatbench-results")]
    pub out: PathBuf,
    /// After a run that ends with exit code 0, save it as baseline NAME (`baselines/NAME.json`
    /// under --out) for `compare --baseline NAME`.
    #[arg(long, value_name = "NAME")]
    pub save_baseline: Option<String>,
    /// Also write a compact Markdown report to FILE: the answer and one narrow table per
    /// operation, no relative links, for pasting into an issue.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Keep the scratch directory (sources, artifacts, job files, worker logs).
    #[arg(long)]
    pub keep_artifacts: bool,
    /// A smaller, faster version of the suite.
    #[arg(long)]
    pub quick: bool,
    /// Finish an interrupted run (its plan is read from RUN_DIR/plan.json; other options are
    /// ignored) without redoing the samples it already holds.
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// With --resume: take every failed sample again, not only those whose object store
    /// stopped answering (which a resume always takes again).
    #[arg(long, requires = "resume")]
    pub retry_failed: bool,
    /// Take samples with identical keys (cell, round, position, data fingerprint and worker
    /// build) from earlier runs under --out instead of measuring them again.
    #[arg(long)]
    pub reuse: bool,
    /// The competitor the report's heat map compares everyone with, as BACKEND/PROFILE
    /// (default: each operation's fastest).
    #[arg(long, value_name = "BACKEND/PROFILE")]
    pub reference: Option<String>,
    /// What the recommendation optimises for: read, write, size or balanced.
    #[arg(long, value_enum, default_value_t)]
    pub prefer: Prefer,
    /// Generate a dataset even when its source looks too big for the free disk under --out or
    /// the memory available (a write holds the whole source).
    #[arg(long)]
    pub allow_large: bool,
    /// Which call of each sample ranks: `warm`, the calls after the first in one process (a
    /// service's view), or `first`, the first call in a fresh process (a script's view). Both
    /// are recorded; `report --call` re-ranks by the other.
    #[arg(long, value_enum, default_value_t)]
    pub call: CallMode,
}

/// A row count: `100000`, `100_000` or `1e5`.
fn row_count(text: &str) -> Result<u64, String> {
    let plain = text.trim().replace('_', "");
    if let Ok(n) = plain.parse::<u64>() {
        return Ok(n);
    }
    match plain.parse::<f64>() {
        Ok(x) if x >= 0.0 && x.fract() == 0.0 && x <= 1e15 => Ok(x as u64),
        _ => Err(format!(
            "'{text}' is not a row count (e.g. 100000, 100_000 or 1e5)"
        )),
    }
}

/// Rows per row group: `10k`, `100_000`, `1M`, `1e6` (at least one).
fn group_rows(text: &str) -> Result<u64, String> {
    match crate::units::parse_count(text) {
        Some(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "'{text}' is not a number of rows per row group (e.g. 10k, 100000 or 1M)"
        )),
    }
}

fn group_bytes(text: &str) -> Result<u64, String> {
    match crate::units::parse_bytes(text) {
        Some(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "'{text}' is not a size of a row group (e.g. 8MiB or 128MiB)"
        )),
    }
}

fn file_count(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("'{text}' is not a number of files (e.g. 1 or 16)")),
    }
}

fn shape(text: &str) -> Result<crate::datasets::Shape, String> {
    text.parse().map_err(|e: crate::Error| e.to_string())
}

/// `--executors`: a count of executor processes, at least 1.
/// `--cluster`: an engine's scheme and a HOST:PORT address.
fn cluster_url(text: &str) -> Result<String, String> {
    let usage = "use dask://HOST:PORT, ray://HOST:PORT or spark://HOST:PORT";
    let (scheme, address) = text.split_once("://").ok_or(usage)?;
    let port = address
        .rsplit_once(':')
        .map(|(host, port)| (host, port.parse::<u16>()));
    match (scheme, port) {
        ("dask" | "ray" | "spark", Some((host, Ok(_)))) if !host.is_empty() => Ok(text.into()),
        _ => Err(usage.into()),
    }
}

fn executor_count(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("use counts of executors of at least 1, e.g. 1,2,4".into()),
    }
}

/// `--threads`: 1, a number of threads, or all (the cores this process may use).
fn thread_cap(text: &str) -> Result<u32, String> {
    if text == "all" {
        return Ok(std::thread::available_parallelism().map_or(1, |n| n.get() as u32));
    }
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("use 1, a number of threads, or all".into()),
    }
}
