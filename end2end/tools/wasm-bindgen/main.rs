//! `wasm-bindgen`, as the crate's own binary runs it: logging from `RUST_LOG`, the CLI's arguments, an error and
//! exit code 1 on failure.

use std::{env, process};

fn main() {
    env_logger::init();
    if let Err(err) = wasm_bindgen_cli::wasm_bindgen::run_cli_with_args(env::args_os()) {
        eprintln!("error: {err:?}");
        process::exit(1);
    }
}
