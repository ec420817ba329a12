//! A delay line in front of the server: the round-trip time of a network profile. It stands
//! in for `tc netem` delay, which many kernels (this project's CI machine's among them) lack;
//! the bandwidth of a profile is the kernel's (`tbf` on the veth pair, set up by the runner).
//!
//! The model, per connection:
//! - set-up: a connection is open one round trip after it is accepted, as TCP's handshake takes
//!   one before a client can send; no byte crosses, either way, before then. (The kernel
//!   completes the client's `connect` at once; what the client sends waits.) A new
//!   connection's first request so costs two round trips, as on a real link;
//! - then every chunk from either side is written to the other half the round trip after it
//!   reached the line (the kernel's receive stamp), never sooner, and a chunk's wait does not
//!   add to the next one's.
//!
//! Precision: tokio's timer has 1 ms granularity (a 0.1 ms wait took about 1.1 ms, so `lan`'s
//! 0.2 ms round trip measured 2.3 ms), so the line runs on OS threads with blocking sockets:
//! per connection and direction, a reader that stamps each chunk with its arrival
//! ([`crate::arrival`]) and a writer that holds it, on threads kept for reuse ([`crate::pool`])
//! at real-time priority ([`network_priority`]), with a connection to the server opened ahead
//! of each client. The writer sleeps with a timer slack of 1 ns (Linux's default, 50 µs, is
//! half of `lan`'s one-way delay) until [`SPIN`] before the chunk is due, then spins the rest:
//! writes left 0.1 µs after they were due at the median, 2.6 µs at the 90th percentile, on
//! the busy 2-core machine. The spin costs at most [`SPIN`] of CPU per chunk (a request, or a
//! response's burst of reads): 4 % of a core at 1,000 requests a second; the threads are
//! otherwise asleep.

use crate::pool::Pool;
use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How long before a chunk is due the writer stops sleeping and spins: a wake-up from a
/// 1 ns-slack sleep overshoots by 5–25 µs on an idle machine, so a sleep to the due time
/// itself would make every hop late by that.
const SPIN: Duration = Duration::from_micros(20);
/// The most one read takes from a socket.
const CHUNK: usize = 256 * 1024;

/// Accepts on `public` (on a thread of its own) and relays each connection to `inner` with
/// the round-trip time `rtt`.
pub fn start(public: TcpListener, inner: SocketAddr, rtt: Duration) -> std::io::Result<()> {
    public.set_nonblocking(false)?;
    let pool = Pool::new();
    thread::Builder::new()
        .name("fbs3-delay-accept".into())
        .spawn(move || accept(public, inner, rtt, pool))
        .map(|_| ())
}

fn accept(public: TcpListener, inner: SocketAddr, rtt: Duration, pool: Pool) {
    // A connection to the server opened ahead, so an accepted client does not wait for one.
    let mut spare = None;
    loop {
        spare = spare.or_else(|| TcpStream::connect(inner).ok());
        let client = match public.accept() {
            Ok((client, _)) => client,
            Err(_) => {
                // Out of descriptors, say: wait instead of spinning on the error.
                thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        let opened = Instant::now() + rtt;
        if let Some(server) = spare.take().or_else(|| TcpStream::connect(inner).ok()) {
            let _ = relay(&pool, client, server, rtt / 2, opened);
        }
    }
}

/// The line's readers and writers run before the machine's other work (SCHED_FIFO at the
/// lowest real-time priority) where this process may ask it (root, as a shaped profile's
/// namespace needs): a real network's wires do not wait for the benchmarked worker's CPU, and
/// on a busy 2-core machine an ordinary thread waits up to milliseconds for a core, which
/// `lan`'s 0.1 ms each way cannot absorb. They sleep but for moving bytes and at most [`SPIN`]
/// a chunk, and the kernel keeps 5 % of every second for ordinary threads anyway. Accepting
/// stays ordinary, so the line's own work on a new connection does not push aside the client
/// that just connected (its connect would take longer than on a real link).
fn network_priority() {
    let param = libc::sched_param { sched_priority: 1 };
    // SAFETY: sets this thread's own scheduling policy; a refusal (EPERM) leaves it as it was.
    unsafe {
        libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param);
    }
}

/// Relays one accepted connection, each way on two of the pool's threads.
fn relay(
    pool: &Pool,
    client: TcpStream,
    server: TcpStream,
    one_way: Duration,
    opened: Instant,
) -> std::io::Result<()> {
    client.set_nodelay(true)?;
    server.set_nodelay(true)?;
    let up = Line {
        from: client.try_clone()?,
        to: server.try_clone()?,
        one_way,
        opened,
    };
    let down = Line {
        from: server,
        to: client,
        one_way,
        opened,
    };
    up.start(pool)?;
    down.start(pool)
}

/// One direction of a connection.
struct Line {
    from: TcpStream,
    to: TcpStream,
    one_way: Duration,
    opened: Instant,
}

impl Line {
    /// A writer, then a reader that hands it what it reads, until either side ends.
    fn start(self, pool: &Pool) -> std::io::Result<()> {
        let Line {
            from,
            to,
            one_way,
            opened,
        } = self;
        crate::arrival::enable(&from);
        let (chunks, held) = mpsc::channel::<Chunk>();
        // The writer hands each buffer back once written: no copy, no allocation per read.
        let (spare, spares) = mpsc::channel::<Vec<u8>>();
        let stop = from.try_clone()?;
        let end = from.try_clone()?;
        pool.run(move || write(held, to, stop, spare))
            .and_then(|()| pool.run(move || read(&from, chunks, spares, one_way, opened)))
            .inspect_err(|_| {
                let _ = end.shutdown(Shutdown::Both);
            })
    }
}

/// Reads `from` until it ends, sending each chunk on, stamped with when it is due.
fn read(
    from: &TcpStream,
    chunks: mpsc::Sender<Chunk>,
    spares: mpsc::Receiver<Vec<u8>>,
    one_way: Duration,
    opened: Instant,
) {
    network_priority();
    loop {
        let mut buffer = spares.try_recv().unwrap_or_else(|_| vec![0u8; CHUNK]);
        match crate::arrival::read(from, &mut buffer) {
            Ok((0, _)) | Err(_) => break,
            Ok((len, age)) => {
                let arrived = Instant::now().checked_sub(age).unwrap_or(opened);
                let due = arrived.max(opened) + one_way;
                if chunks.send(Chunk { due, buffer, len }).is_err() {
                    break;
                }
            }
        }
    }
    // Dropping `chunks` lets the writer finish what it holds, then pass the end on.
}

/// Bytes read, held until `due`: the first `len` of `buffer`.
struct Chunk {
    due: Instant,
    buffer: Vec<u8>,
    len: usize,
}

/// Writes each chunk to `to` when it is due; passes the end of the stream on, or, when `to`
/// fails, ends both sockets, so the reader of `stop` (and the other direction) stop too.
fn write(
    held: mpsc::Receiver<Chunk>,
    mut to: TcpStream,
    stop: TcpStream,
    spare: mpsc::Sender<Vec<u8>>,
) {
    network_priority();
    precise_sleeps();
    for chunk in held {
        wait_until(chunk.due);
        if to.write_all(&chunk.buffer[..chunk.len]).is_err() {
            let _ = to.shutdown(Shutdown::Both);
            let _ = stop.shutdown(Shutdown::Both);
            return;
        }
        let _ = spare.send(chunk.buffer);
    }
    let _ = to.shutdown(Shutdown::Write);
}

/// This thread's sleeps end when asked, not up to 50 µs later (Linux's default timer slack).
fn precise_sleeps() {
    // SAFETY: PR_SET_TIMERSLACK only sets this thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

/// Returns at `due` or after, never before: sleeps until [`SPIN`] before it, then spins.
pub(crate) fn wait_until(due: Instant) {
    loop {
        let now = Instant::now();
        if now >= due {
            return;
        }
        let left = due - now;
        if left > SPIN {
            thread::sleep(left - SPIN);
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_never_ends_before_it_is_due() {
        precise_sleeps();
        for micros in [0, 1, 15, 20, 21, 100, 2_500] {
            let due = Instant::now() + Duration::from_micros(micros);
            wait_until(due);
            assert!(Instant::now() >= due, "{micros} µs");
        }
        // A due time in the past returns at once.
        let now = Instant::now();
        wait_until(now.checked_sub(Duration::from_millis(1)).unwrap_or(now));
    }
}
