fn main() {
    std::process::exit(formatbench::cli::main());
}
