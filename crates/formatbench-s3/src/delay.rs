//! A delay line in front of the server: every byte that crosses a connection, in either
//! direction, is held for half the profile's round-trip time before it goes on. It stands in
//! for `tc netem` delay, which many kernels (this project's CI machine's among them) lack; the
//! bandwidth of a profile is the kernel's (`tbf` on the veth pair, set up by the runner).

use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};

/// Accepts on `public` and relays each connection to `inner`, delayed by `one_way` each way.
pub async fn serve(public: TcpListener, inner: SocketAddr, one_way: Duration) {
    loop {
        let Ok((client, _)) = public.accept().await else {
            continue;
        };
        tokio::spawn(async move {
            let _ = client.set_nodelay(true);
            let Ok(server) = TcpStream::connect(inner).await else {
                return;
            };
            let _ = server.set_nodelay(true);
            let (client_read, client_write) = client.into_split();
            let (server_read, server_write) = server.into_split();
            let up = tokio::spawn(pump(client_read, server_write, one_way));
            pump(server_read, client_write, one_way).await;
            let _ = up.await;
        });
    }
}

/// Copies `from` to `to`, each chunk written `delay` after it was read; the reader never waits
/// for the writer, so a chunk's delay does not add to the next one's.
async fn pump<R, W>(mut from: R, mut to: W, delay: Duration)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let reader = tokio::spawn(async move {
        let mut buffer = vec![0u8; 256 * 1024];
        loop {
            match from.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx
                        .send((Instant::now() + delay, buffer[..n].to_vec()))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
    while let Some((due, chunk)) = rx.recv().await {
        sleep_until(due).await;
        if to.write_all(&chunk).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
    reader.abort();
}
