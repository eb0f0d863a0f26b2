//! The `delivery-sim` binary: everything lives in `delivery_sim_cli::cli`.

fn main() -> std::process::ExitCode {
    delivery_sim_cli::cli::main()
}
