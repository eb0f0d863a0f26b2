//! The `delivery-sim` binary: everything lives in the library's `cli` module.

fn main() -> std::process::ExitCode {
    delivery_sim::cli::main()
}
