//! Work split over threads: the reads, writes and rewrites of partitions share it, and so do
//! the built-in worker's column-parallel decoders (one splitter for both).

use crate::error::{Result, StoreError};
use std::ops::Range;

/// `0..len` cut into at most `parts` contiguous, non-empty ranges of near-equal size (the
/// first `len % parts` one longer), in order.
pub fn split(len: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.clamp(1, len.max(1));
    let (base, extra) = (len / parts, len % parts);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for p in 0..parts {
        let end = start + base + usize::from(p < extra);
        if end > start {
            out.push(start..end);
        }
        start = end;
    }
    out
}

/// Runs `work` over `items` cut into up to `threads` contiguous groups at once; results keep
/// the items' order.
pub(crate) fn in_parallel<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    work: impl Fn(&[T]) -> Result<Vec<R>> + Sync,
) -> Result<Vec<R>> {
    let groups = split(items.len(), threads);
    if groups.len() <= 1 {
        return work(items);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|range| {
                let work = &work;
                scope.spawn(move || work(&items[range]))
            })
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

/// Runs `work(state, i)` for every `i` in `0..count` on up to `threads` threads, each taking
/// the next index as it finishes one (a few large items among many small ones still spread
/// over them), each with a `state` of its own from `init`; results in index order. Every
/// thread is joined before an error returns (the scope would panic on one left unjoined).
pub(crate) fn in_turn<S, R: Send>(
    threads: usize,
    count: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let run = || -> Result<Vec<(usize, R)>> {
        let mut state = init();
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= count {
                return Ok(done);
            }
            done.push((i, work(&mut state, i)?));
        }
    };
    let threads = threads.clamp(1, count.max(1));
    let mut all = if threads == 1 {
        run()?
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(run)).collect();
            let parts: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
            let mut all = Vec::with_capacity(count);
            for part in parts {
                all.extend(
                    part.map_err(|_| StoreError::Invalid("a worker thread panicked".into()))??,
                );
            }
            Ok::<_, StoreError>(all)
        })?
    };
    all.sort_unstable_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, r)| r).collect())
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_gives_near_equal_contiguous_ranges_covering_everything() {
        assert_eq!(split(10, 3), vec![0..4, 4..7, 7..10]);
        assert_eq!(split(2, 5), vec![0..1, 1..2]);
        assert_eq!(split(0, 4), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(split(7, 0), vec![0..7]);
    }
}
