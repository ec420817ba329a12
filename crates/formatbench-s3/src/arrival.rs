//! Reads that say when their bytes reached the socket: the kernel's receive timestamp
//! (`SO_TIMESTAMPNS`), so the delay line holds a chunk from its arrival, not from when its
//! reader thread woke to read it (5-30 µs later on a busy machine, each way: a sizeable part
//! of `lan`'s 0.1 ms one-way delay).

use std::io::{Error, ErrorKind};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::Duration;

/// Asks the kernel to stamp what `socket` receives; without it, [`read`] reports no age.
pub fn enable(socket: &TcpStream) {
    let on: libc::c_int = 1;
    // SAFETY: sets an integer option on a socket this process owns; the pointer and length
    // describe `on`.
    unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

/// Reads into `buffer`: the bytes read (0 at the end of the stream) and how long ago the
/// kernel received the last of them (zero when it does not say). TCP stamps a read with its
/// last segment's arrival, so an age is never more than the first byte's: a chunk is never
/// released early.
pub fn read(socket: &TcpStream, buffer: &mut [u8]) -> std::io::Result<(usize, Duration)> {
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    // Room for one timestamp message, 8-byte aligned as cmsg headers need.
    let mut control = [0u64; 8];
    // SAFETY: an all-zero msghdr is valid; its pointers are set below to live buffers.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = std::mem::size_of_val(&control) as _;
    let read = loop {
        // SAFETY: `message` points to `iov` (over `buffer`) and `control`, all alive here.
        let n = unsafe { libc::recvmsg(socket.as_raw_fd(), &mut message, 0) };
        if n >= 0 {
            break n as usize;
        }
        let error = Error::last_os_error();
        if error.kind() != ErrorKind::Interrupted {
            return Err(error);
        }
    };
    let now = realtime();
    let mut age = Duration::ZERO;
    // SAFETY: the CMSG macros walk the control buffer the kernel filled, within
    // `msg_controllen`; the timestamp is read unaligned from its message's data.
    unsafe {
        let mut header = libc::CMSG_FIRSTHDR(&message);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET
                && (*header).cmsg_type == libc::SCM_TIMESTAMPNS
            {
                let stamp: libc::timespec =
                    std::ptr::read_unaligned(libc::CMSG_DATA(header).cast());
                age = since(stamp, now);
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
    }
    Ok((read, age))
}

fn realtime() -> libc::timespec {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes the clock's time into `now`.
    unsafe {
        libc::clock_gettime(libc::CLOCK_REALTIME, &mut now);
    }
    now
}

/// `now - stamp`; zero when the stamp is in the future or absurdly old (the clock was set).
fn since(stamp: libc::timespec, now: libc::timespec) -> Duration {
    let nanos = |t: libc::timespec| i128::from(t.tv_sec) * 1_000_000_000 + i128::from(t.tv_nsec);
    let age = nanos(now) - nanos(stamp);
    if (0..1_000_000_000).contains(&age) {
        Duration::from_nanos(age as u64)
    } else {
        Duration::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_read_reports_its_bytes_and_a_plausible_age() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        enable(&server);
        // The kernel switches receive stamping on from a work queue the first time a socket
        // asks (`net_enable_timestamp`): a segment arriving before that is not stamped.
        std::thread::sleep(Duration::from_millis(50));
        client.write_all(b"hello").unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let mut buffer = [0u8; 16];
        let (n, age) = read(&server, &mut buffer).unwrap();
        assert_eq!(&buffer[..n], b"hello");
        // Received before the 20 ms sleep: its age covers the sleep.
        assert!(age >= Duration::from_millis(20), "{age:?}");
        drop(client);
        assert_eq!(read(&server, &mut buffer).unwrap().0, 0);
    }
}
