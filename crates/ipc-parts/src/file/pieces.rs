//! Stretches of a file read back to back into one buffer, each straight into its place: a
//! fixed-size list's blocks or picked rows, a `.npy`'s picked rows. No buffer per stretch and
//! no concatenation after.

use super::pread_exact;
use crate::parallel::split;
use std::fs::File;
use std::io;

/// A stretch of a file: `len` bytes from `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub offset: u64,
    pub len: usize,
}

/// Reads `pieces` of `file` one after another into `into`, whose
/// `capacity` bytes they must fill exactly (else an error before any read), on up to `threads`
/// threads, each reading a contiguous share of the pieces.
///
/// # Safety
/// `into` must be valid for writes of `capacity` bytes, and nothing may read them meanwhile.
pub unsafe fn pread_pieces(
    file: &File,
    pieces: &[Piece],
    threads: usize,
    into: *mut u8,
    capacity: usize,
) -> io::Result<()> {
    // Where each piece lands; a corrupt length must not wrap the sum checked against the buffer.
    let mut starts = Vec::with_capacity(pieces.len());
    let mut total = 0usize;
    for piece in pieces {
        starts.push(total);
        total = total
            .checked_add(piece.len)
            .ok_or_else(|| invalid("overflow"))?;
    }
    if total != capacity {
        return Err(invalid("do not fill the buffer"));
    }
    // An address crosses to the threads: a raw pointer is not `Sync`.
    let base = into as usize;
    let read_share = |share: std::ops::Range<usize>| -> io::Result<()> {
        for i in share {
            let Piece { offset, len } = pieces[i];
            // SAFETY: piece i fills bytes starts[i] .. starts[i] + len of the `capacity` the
            // caller vouched for (the lengths sum to it); no two pieces share bytes.
            unsafe { pread_exact(file, (base as *mut u8).add(starts[i]), len, offset)? };
        }
        Ok(())
    };
    let shares = split(pieces.len(), threads.max(1));
    if shares.len() <= 1 {
        return read_share(0..pieces.len());
    }
    let read_share = &read_share;
    std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .into_iter()
            .map(|share| scope.spawn(move || read_share(share)))
            .collect();
        // Every thread is joined before an error returns.
        let results: Vec<io::Result<()>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("a reading thread panicked")))
            })
            .collect();
        results.into_iter().collect()
    })
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("the pieces' lengths {what}"),
    )
}
