// Workers run inside this binary (`__worker`), so their allocator is this one: the worker
// kit's, with its settings (workers/rust/kit/src/allocator.rs says why).
#[global_allocator]
static ALLOCATOR: formatbench_worker_kit::allocator::MiMalloc =
    formatbench_worker_kit::allocator::MiMalloc;

fn main() {
    formatbench_worker_kit::allocator::configure();
    std::process::exit(formatbench::cli::main());
}
