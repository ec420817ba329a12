//! Work split over threads: the reads, writes and rewrites of partitions share it.

use crate::error::{Result, StoreError};

/// Runs `work` over `items` cut into up to `threads` contiguous groups at once; results keep
/// the items' order.
pub(crate) fn in_parallel<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    work: impl Fn(&[T]) -> Result<Vec<R>> + Sync,
) -> Result<Vec<R>> {
    let groups = threads.clamp(1, items.len().max(1));
    if groups == 1 {
        return work(items);
    }
    let size = items.len().div_ceil(groups);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(size)
            .map(|group| scope.spawn(|| work(group)))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for handle in handles {
            let part = handle
                .join()
                .map_err(|_| StoreError::Invalid("a writer thread panicked".into()))??;
            out.extend(part);
        }
        Ok(out)
    })
}
