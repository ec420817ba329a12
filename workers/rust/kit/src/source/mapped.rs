//! The source mapped and decoded zero-copy: its batches point into the page cache, so a job that
//! needs the whole source only to prepare something untimed (a change's base table) holds no
//! copy of it, and dropping the batches unmaps it at once. Heap memory, once freed, may stay
//! with the allocator and count in every later reading of the process's memory.

use crate::KitError;
use arrow::array::RecordBatch;
use arrow::buffer::Buffer;
use arrow::datatypes::SchemaRef;
// `try_fb_to_schema` replaces it from Arrow 60 on; the kit builds on 58 and 59 too.
#[allow(deprecated)]
use arrow::ipc::convert::fb_to_schema;
use arrow::ipc::reader::FileDecoder;
use arrow::ipc::{root_as_footer, Block};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::ptr::NonNull;
use std::sync::Arc;

/// A read-only private mapping of a whole file, unmapped when the last buffer into it drops.
struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only and never changes while mapped (sources are written once,
// before any job reads them); the pointer is only read through arrow's buffers.
unsafe impl Send for Mapping {}
// SAFETY: as above; concurrent reads of read-only memory are sound.
unsafe impl Sync for Mapping {}
impl std::panic::RefUnwindSafe for Mapping {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned, unmapped once, here.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

fn map(path: &Path) -> Result<Buffer, KitError> {
    let invalid = |what: String| KitError::Invalid(format!("{}: {what}", path.display()));
    let file = File::open(path).map_err(|e| invalid(format!("cannot open the source: {e}")))?;
    let len =
        usize::try_from(file.metadata()?.len()).map_err(|_| invalid("too large to map".into()))?;
    if len == 0 {
        return Err(invalid("empty".into()));
    }
    // SAFETY: a fresh read-only private mapping of an open file; the kernel picks the address.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return Err(invalid(format!(
            "cannot map the source: {}",
            std::io::Error::last_os_error()
        )));
    }
    let ptr = NonNull::new(ptr.cast::<u8>()).ok_or_else(|| invalid("mapped at null".into()))?;
    let owner = Arc::new(Mapping { ptr, len });
    // SAFETY: the mapping holds `len` readable bytes for as long as `owner` lives, and the
    // buffer keeps `owner` alive.
    Ok(unsafe { Buffer::from_custom_allocation(ptr, len, owner) })
}

/// Every batch of the source, decoded zero-copy from a mapping of it (buffers the writer did
/// not align are copied by arrow), with its schema.
pub fn read_all_mapped(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), KitError> {
    let invalid = |what: &str| KitError::Invalid(format!("{}: {what}", path.display()));
    let buffer = map(path)?;
    let bytes = buffer.as_slice();
    let tail = bytes
        .len()
        .checked_sub(10)
        .and_then(|at| bytes.get(at..))
        .ok_or_else(|| invalid("too short for an Arrow IPC file"))?;
    let footer_len = tail
        .get(..4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(i32::from_le_bytes)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| invalid("a bad footer length"))?;
    let footer_start = bytes
        .len()
        .checked_sub(10 + footer_len)
        .ok_or_else(|| invalid("a footer longer than the file"))?;
    let footer = root_as_footer(&bytes[footer_start..bytes.len() - 10])
        .map_err(|e| invalid(&format!("a bad footer: {e}")))?;
    #[allow(deprecated)]
    let schema = Arc::new(fb_to_schema(
        footer.schema().ok_or_else(|| invalid("no schema"))?,
    ));
    let mut decoder = FileDecoder::new(schema.clone(), footer.version());
    let block_bytes = |block: &Block| {
        let len = block.metaDataLength() as usize + block.bodyLength() as usize;
        let offset = usize::try_from(block.offset()).unwrap_or(usize::MAX);
        match offset.checked_add(len) {
            Some(end) if end <= buffer.len() => Ok(buffer.slice_with_length(offset, len)),
            _ => Err(invalid("a block past the end")),
        }
    };
    for block in footer.dictionaries().iter().flatten() {
        decoder.read_dictionary(block, &block_bytes(block)?)?;
    }
    let mut batches = Vec::new();
    for block in footer.recordBatches().iter().flatten() {
        if let Some(batch) = decoder.read_record_batch(block, &block_bytes(block)?)? {
            batches.push(batch);
        }
    }
    Ok((schema, batches))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    #[test]
    fn a_mapped_source_reads_as_the_buffered_reader_reads_it() {
        let dir = std::env::temp_dir().join(format!("kit-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("source.arrow");
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]));
        let batch = |from: i64| {
            let strings = StringArray::from(vec![Some("a"), None, Some("ccc"), Some(""), None]);
            let ints = Int64Array::from_iter_values(from..from + 5);
            RecordBatch::try_new(schema.clone(), vec![Arc::new(ints), Arc::new(strings)]).unwrap()
        };
        let written = vec![batch(0), batch(5)];
        super::super::write_ipc(&path, &schema, &written).unwrap();
        let mapped = read_all_mapped(&path).unwrap();
        let buffered = super::super::read_all(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(mapped.0, buffered.0);
        assert_eq!(mapped.1, buffered.1);
        assert_eq!(mapped.1, written);
    }
}
