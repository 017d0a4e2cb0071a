//! Command-line arguments.

use std::{net::SocketAddr, path::PathBuf};

use clap::Parser;

/// Drainboard: cordon, drain and uncordon Kubernetes nodes from the browser.
#[derive(Debug, Parser)]
#[command(name = "drainboard", version)]
pub struct Args {
    /// Kubeconfig file to use. Without it: $KUBECONFIG, then ~/.kube/config.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// Kubeconfig context to use instead of its current-context.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,

    /// Address to serve the dashboard on. Port 0 picks a free port; the URL is printed on stdout.
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:3000",
        env = "DRAINBOARD_ADDR"
    )]
    pub addr: SocketAddr,
}
