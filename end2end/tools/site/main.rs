//! `drainboard-site`: the site build's own steps, one subcommand each, for end2end/scripts/build-site.sh.
//!
//!   drainboard-site split INPUT.wasm OUT_DIR NAME   the #[lazy] parts into OUT_DIR, the rest beside INPUT
//!   drainboard-site bindgen ARGS…                   wasm-bindgen, exactly as its own CLI runs
//!   drainboard-site compress DIR                    a .gz and a .br beside every file under DIR
//!
//! Errors print one line saying what failed and exit 1; a wrong call prints the usage and exits 2.

mod compress;
mod split;

use std::{env, ffi::OsString, path::PathBuf, process::ExitCode};

const USAGE: &str = "usage: drainboard-site split INPUT.wasm OUT_DIR NAME | bindgen ARGS... | compress DIR";

fn main() -> ExitCode {
    env_logger::init();
    let mut args = env::args_os().skip(1);
    let command = args.next().and_then(|c| c.into_string().ok());
    let rest: Vec<OsString> = args.collect();
    let outcome = match (command.as_deref(), rest.as_slice()) {
        (Some("split"), [input, out_dir, name]) => match name.to_str() {
            Some(name) => split::split(&PathBuf::from(input), &PathBuf::from(out_dir), name).map(|chunks| {
                eprintln!("drainboard-site: split {} lazily loaded part(s) out of the wasm", chunks.len());
            }),
            None => Err(format!("the output name {name:?} is not UTF-8")),
        },
        // wasm-bindgen reads its own name as the first argument, as a command line has it.
        (Some("bindgen"), rest) => {
            let argv = std::iter::once(OsString::from("wasm-bindgen")).chain(rest.iter().cloned());
            wasm_bindgen_cli::wasm_bindgen::run_cli_with_args(argv).map_err(|e| format!("wasm-bindgen: {e:?}"))
        }
        (Some("compress"), [dir]) => compress::compress_tree(&PathBuf::from(dir)).map(|n| {
            eprintln!("drainboard-site: precompressed {n} file(s) (gzip and brotli)");
        }),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("drainboard-site: {message}");
            ExitCode::FAILURE
        }
    }
}
