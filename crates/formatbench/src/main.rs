// Workers run inside this binary (`__worker`), so their allocator is this one. glibc's malloc
// unmaps every large block on free, and each repeated call inside a sample then pays page faults
// and kernel zeroing again; mimalloc reuses them, as the peers' allocators (jemalloc in pyarrow
// and Polars, mimalloc in DuckDB's wheels) do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // SAFETY: mi_collect only walks mimalloc's own heaps, the allocator in use here.
    formatbench_protocol::set_memory_release(|| unsafe { libmimalloc_sys::mi_collect(true) });
    std::process::exit(formatbench::cli::main());
}
