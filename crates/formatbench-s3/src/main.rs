//! `formatbench-s3 --root DIR --listen HOST:PORT --ready FILE [--rtt-ms MS]`: the server
//! `formatbench run --storage s3` starts, as a program of its own (formatbench starts the same
//! code as `formatbench __s3-server`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(formatbench_s3::main_with_args(&args));
}
