//! An object's bytes read from its file in large chunks. s3s-fs 0.14.1 streams a GET's body
//! 4 KiB at a time through tokio's file, one trip to the blocking pool each, which caps the
//! server near 100 MB/s on this project's 2-core machine (`formatbench calibrate --network`
//! measured 0.8-1.4 Gbit/s on plain loopback): below `region`'s 1 Gbit/s, so a profile's
//! bandwidth would have been the server's. 256 KiB a read moves several GB/s.

use bytes::Bytes;
use http_body::Frame;
use std::io::{ErrorKind, SeekFrom};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncSeekExt, ReadBuf};

const CHUNK: usize = 256 * 1024;

pub struct FileBody {
    file: tokio::fs::File,
    left: u64,
    buffer: Vec<u8>,
}

impl FileBody {
    /// `length` bytes of the file at `path`, from `start`.
    pub async fn open(path: &Path, start: u64, length: u64) -> std::io::Result<FileBody> {
        let mut file = tokio::fs::File::open(path).await?;
        file.seek(SeekFrom::Start(start)).await?;
        Ok(FileBody {
            file,
            left: length,
            buffer: vec![0; CHUNK.min(usize::try_from(length).unwrap_or(CHUNK))],
        })
    }
}

impl http_body::Body for FileBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = &mut *self;
        if this.left == 0 {
            return Poll::Ready(None);
        }
        let want = this
            .buffer
            .len()
            .min(usize::try_from(this.left).unwrap_or(CHUNK));
        let mut read = ReadBuf::new(&mut this.buffer[..want]);
        match Pin::new(&mut this.file).poll_read(cx, &mut read) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Some(Err(e))),
            Poll::Ready(Ok(())) => {
                let n = read.filled().len();
                if n == 0 {
                    // The file shrank under the response: fail it rather than send too little.
                    return Poll::Ready(Some(Err(ErrorKind::UnexpectedEof.into())));
                }
                this.left -= n as u64;
                let chunk = Bytes::copy_from_slice(read.filled());
                Poll::Ready(Some(Ok(Frame::data(chunk))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left)
    }
}
