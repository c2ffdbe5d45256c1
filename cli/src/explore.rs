//! `sharetxn explore`: serves stateright's web Explorer over the same `System` (with the
//! property table attached, see `sharetxn_properties::explorer`), so a user can click
//! through the very transitions the checker explores. It blocks until interrupted.
//!
//! Stateright's server unwraps its socket errors: it panics if the address cannot be
//! bound, and its one request thread dies if a browser hangs up mid-response. So the
//! address is bound once here first, to turn a busy port into a one-line error; a server
//! that died is started again on the same address; and panics print one line each.

use crate::args::ExploreArgs;
use crate::error::CliError;
use crate::output;
use sharetxn_model::System;
use sharetxn_properties::explorer::Checked;
use stateright::Model;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

/// How often a server that died is restarted before giving up.
const MAX_RESTARTS: u32 = 1000;

/// The URL users open: `http://host:port/` (IPv6 literals in brackets).
pub fn url(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("http://[{host}]:{port}/")
    } else {
        format!("http://{host}:{port}/")
    }
}

/// Resolves the address and checks that it can be listened on.
fn usable_address(host: &str, port: u16) -> Result<Vec<SocketAddr>, CliError> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = (bare, port)
        .to_socket_addrs()
        .map_err(|e| CliError::new(format!("cannot resolve --host {host}: {e}")))?
        .collect();
    if addrs.is_empty() {
        return Err(CliError::new(format!("--host {host} has no address")));
    }
    TcpListener::bind(&addrs[..])
        .map_err(|e| CliError::new(format!("cannot listen on {host}:{port}: {e}")))?;
    Ok(addrs)
}

/// Serves the Explorer until the process is stopped.
pub fn run(args: ExploreArgs) -> Result<ExitCode, CliError> {
    let system = System::new(args.model.design, args.model.scenario);
    let mut addrs = usable_address(&args.host, args.port)?;
    output::stderr(&format!("Explorer at {}\n", url(&args.host, args.port)));

    // A panic inside stateright's server (or one of tiny_http's connection threads, which
    // unwrap socket errors when a client resets the connection) is one line, not a
    // backtrace note; a dead connection thread does not stop the server.
    panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown failure".into());
        output::error_line(&format!("explorer: {}", message.replace('\n', " ")));
    }));

    for _ in 0..=MAX_RESTARTS {
        let model = Checked(system.clone());
        let bind = addrs.clone();
        // `serve` only returns by panicking (its request thread died); start it again.
        let _ = panic::catch_unwind(AssertUnwindSafe(move || {
            model.checker().threads(1).serve(&bind[..]);
        }));
        addrs = usable_address(&args.host, args.port)?;
        output::error_line("restarting the explorer server");
    }
    Err(CliError::new(
        "the explorer server keeps failing; giving up",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(url("127.0.0.1", 3000), "http://127.0.0.1:3000/");
        assert_eq!(url("::1", 80), "http://[::1]:80/");
        assert_eq!(url("[::1]", 80), "http://[::1]:80/");
    }
}
