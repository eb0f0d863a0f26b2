//! Ctrl-C during `sweep` and `explore`: the first one asks the search to stop after the
//! runs in progress ([`crate::explore::interrupt`]), so that every finding already found is
//! written and the command can say how far it got and how to resume; a second one quits at
//! once, for a user who cannot wait for the runs in progress.
//!
//! The `ctrlc` crate runs the handler on a thread of its own, so the handler may print and
//! exit; on Windows it catches Ctrl-C too.

use crate::explore::interrupt;
use std::process::ExitCode;

/// The exit code of an interrupted command: 128 + SIGINT, as shells report it.
pub const EXIT_CODE: u8 = 130;

/// Whether a search installed the handler (then the first Ctrl-C stops it between runs).
static SEARCH: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set when the tool quits on Ctrl-C: the server is being stopped under the runs in
/// progress, whose failures are not the command's outcome.
static QUITTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the tool is quitting on Ctrl-C (see [`QUITTING`]).
pub fn quitting() -> bool {
    QUITTING.load(std::sync::atomic::Ordering::SeqCst)
}

/// Installs the handler (once per process; later calls do nothing).
pub fn install() {
    SEARCH.store(true, std::sync::atomic::Ordering::SeqCst);
    install_for_server();
}

/// Installs the handler for a command that may start a PostgreSQL server: Ctrl-C stops
/// the server and removes its directory before the tool quits (a search, see [`install`],
/// first stops between runs).
pub fn install_for_server() {
    let _ = ctrlc::set_handler(|| {
        let search = SEARCH.load(std::sync::atomic::Ordering::SeqCst);
        if !search || interrupt::requested() {
            if search {
                eprintln!("interrupted again: quitting now");
            }
            QUITTING.store(true, std::sync::atomic::Ordering::SeqCst);
            crate::store::pg::server::shutdown();
            std::process::exit(i32::from(EXIT_CODE));
        }
        eprintln!(
            "interrupt: stopping after the runs in progress (press Ctrl-C again to quit at once)"
        );
        interrupt::request();
    });
}

pub fn exit_code() -> ExitCode {
    ExitCode::from(EXIT_CODE)
}
