//! The allocator every native worker program runs on, and its settings. glibc's malloc unmaps
//! every large block on free, so each repeated call inside a sample paid page faults and kernel
//! zeroing again for memory the call before had freed; mimalloc keeps it, as the peers'
//! allocators (jemalloc in pyarrow and Polars, mimalloc in DuckDB's wheels) do. A program
//! declares [`MiMalloc`] its `#[global_allocator]` and calls [`configure`] first thing in
//! `main`: the formatbench binary (whose `__worker` runs the built-in backends) and each heavy
//! worker alike.

pub use mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`, by its place in v3's `mi_option_e` (libmimalloc-sys
/// names no constant for it; a test checks its default).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// How long freed pages stay with mimalloc before it hands them back to the OS: jemalloc's
/// default `dirty_decay_ms`, as pyarrow and Polars run. At mimalloc's own 1 s, a worker's
/// repeated calls found the pages their previous call freed handed back, and paid page faults,
/// kernel zeroing and TLB shootdowns for them again: over 20 calls of a 100k × 61 Parquet
/// write, 3,500–4,200 faults and 110–114 ms per call at 1 s, 2,100–2,300 and 97–113 ms at
/// 10 s or never. A change job still hands back what its preparation freed before its timer
/// (`mi_collect`, below).
const PURGE_DELAY_MS: std::ffi::c_long = 10_000;

/// Sets mimalloc's purge delay and registers `mi_collect` as the protocol's memory release.
/// Call it before the program starts any other thread, in a program whose global allocator is
/// [`MiMalloc`].
pub fn configure() {
    // SAFETY: sets one of mimalloc's options, before the program starts any other thread.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    // SAFETY: mi_collect only walks mimalloc's own heaps, the allocator in use here.
    formatbench_protocol::set_memory_release(|| unsafe { libmimalloc_sys::mi_collect(true) });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_option_is_the_one_with_mimallocs_one_second_default() {
        // SAFETY: reads an option; configure() has not run in this test program.
        let default = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(
                default, 1000,
                "option {MI_OPTION_PURGE_DELAY} is not purge_delay"
            );
        }
    }
}
