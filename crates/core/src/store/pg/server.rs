//! The PostgreSQL server a command runs on: a private throwaway cluster the tool starts
//! from the binaries on the machine (on a Unix socket in a 0700 temporary directory, no
//! TCP port, removed when the command ends), or an existing server named by a URL, on
//! which the tool creates and drops only its own scratch databases.
//!
//! One server per process, started at the first run that needs it and shared by every
//! run of the command; [`shutdown`] stops it (the CLI calls it on every way out, Ctrl-C
//! included). The postmaster runs in a session of its own, so that a Ctrl-C at the
//! terminal reaches only the tool, which then stops it; and it is told to quit when the
//! tool dies (`PR_SET_PDEATHSIG`), so that even a killed tool leaves no server running.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Mutex};

pub use super::wire::Target;
use super::wire::{blocking_admin, CLUSTER_USER};

/// The prefix of every database the tool creates; it never touches another.
pub const SCRATCH_PREFIX: &str = "delivery_sim_scratch_";

/// The environment variable that names an existing server, as `--database-url` does.
pub const URL_VARIABLE: &str = "DELIVERY_SIM_DATABASE_URL";

/// The process's server, once started, and the scratch databases made on it.
struct Registry {
    target: Option<Target>,
    cluster: Option<Cluster>,
    scratch: Vec<String>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    target: None,
    cluster: None,
    scratch: Vec::new(),
});

/// The URL given on the command line, if any (else [`URL_VARIABLE`] is read).
static URL: Mutex<Option<String>> = Mutex::new(None);

/// Sets the URL of an existing server to run on (`--database-url`).
pub fn use_url(url: Option<String>) {
    *URL.lock().unwrap_or_else(|e| e.into_inner()) = url;
}

/// The server, started on first use: the URL's, or a cluster of the tool's own.
pub fn target() -> Result<Target, String> {
    let mut r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = &r.target {
        return Ok(t.clone());
    }
    let url = URL.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let url = url.or_else(|| std::env::var(URL_VARIABLE).ok().filter(|u| !u.is_empty()));
    let target = match url {
        Some(url) => Target::Url(url),
        None => {
            let cluster = Cluster::start()?;
            stop_at_exit();
            let t = Target::Own {
                socket_dir: cluster.dir.path().to_path_buf(),
            };
            r.cluster = Some(cluster);
            t
        }
    };
    r.target = Some(target.clone());
    Ok(target)
}

/// Makes [`shutdown`] run when the process exits normally (a library user's program, a
/// test binary), as the CLI also calls it on every way out.
fn stop_at_exit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    extern "C" fn at_exit() {
        shutdown();
    }
    ONCE.call_once(|| {
        // SAFETY: registers a function with no arguments that never unwinds out (shutdown
        // catches nothing but panics on nothing: its errors are ignored).
        unsafe { libc::atexit(at_exit) };
    });
}

/// Records a scratch database, for [`shutdown`] to drop.
pub(super) fn remember_scratch(name: &str) {
    let mut r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    r.scratch.push(name.to_string());
}

/// Whether this process has a server in use (for the Ctrl-C handler).
pub fn running() -> bool {
    let r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    r.target.is_some()
}

/// Drops every scratch database this process made and stops its own cluster, removing
/// its directory. Safe to call more than once, and from the Ctrl-C handler's thread.
pub fn shutdown() {
    let mut r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let scratch = std::mem::take(&mut r.scratch);
    if let (Some(target), false) = (&r.target, scratch.is_empty()) {
        // On our own cluster the databases go with it; on a user's server each is dropped,
        // its connections ended first (`WITH (FORCE)`).
        if let Target::Url(_) = target {
            let _ = drop_databases(target, &scratch);
        }
    }
    r.target = None;
    if let Some(cluster) = r.cluster.take() {
        cluster.stop();
    }
}

fn drop_databases(target: &Target, names: &[String]) -> Result<(), String> {
    let admin = target.admin_database();
    blocking_admin(target, &admin, |statements| {
        for name in names {
            statements.push(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
        }
    })
}

/// A cluster the tool started: its private directory, and the thread that keeps its
/// postmaster (dropping `stop` tells it to stop the server).
struct Cluster {
    dir: tempfile::TempDir,
    stop: mpsc::Sender<()>,
    keeper: std::thread::JoinHandle<()>,
}

/// What a user lacking PostgreSQL is told.
pub fn no_server_message(why: &str) -> String {
    format!(
        "--engine postgres needs a PostgreSQL server, and {why}. Either install PostgreSQL's \
         server binaries (Debian/Ubuntu: `apt-get install postgresql`; macOS: `brew install \
         postgresql`), which the tool finds on PATH, in PG_BIN or under \
         /usr/lib/postgresql/VERSION/bin and starts as a private throwaway cluster on a \
         Unix socket, removed when the command ends; or name an existing server with \
         --database-url postgres://USER@HOST/DB (or {URL_VARIABLE}), on which the tool \
         creates and drops only databases named {SCRATCH_PREFIX}*."
    )
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        let bin = binaries()?;
        let account = Account::for_server()?;
        let dir = private_dir(&account)?;
        let data = dir.path().join("data");
        let mut initdb = Command::new(bin.join("initdb"));
        initdb
            .args(["-D"])
            .arg(&data)
            .args(["-U", CLUSTER_USER, "--auth=trust", "--no-sync"])
            .args(["--encoding=UTF8", "--locale=C", "--no-instructions"])
            .stdin(Stdio::null());
        account.apply(&mut initdb, false);
        let out = initdb
            .output()
            .map_err(|e| no_server_message(&format!("initdb could not start ({e})")))?;
        if !out.status.success() {
            return Err(format!(
                "initdb failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let log_path = dir.path().join("server.log");
        let log = std::fs::File::create(&log_path)
            .map_err(|e| format!("cannot write the server's log: {e}"))?;
        account.own(&log_path)?;
        let mut postgres = Command::new(bin.join("postgres"));
        postgres.arg("-D").arg(&data).arg("-k").arg(dir.path());
        for setting in SETTINGS {
            postgres.args(["-c", setting]);
        }
        postgres
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        account.apply(&mut postgres, true);
        // The postmaster is the child of a thread that lives until the cluster is stopped:
        // the parent-death signal follows the thread that started it, not the process.
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
        let (stop, stop_rx) = mpsc::channel::<()>();
        let keeper = std::thread::Builder::new()
            .name("delivery-sim-postgres".into())
            .spawn(move || keep(postgres, &data, &log_path, ready_tx, stop_rx))
            .map_err(|e| format!("cannot start the thread that keeps the server: {e}"))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Cluster { dir, stop, keeper }),
            Ok(Err(e)) => {
                let _ = keeper.join();
                Err(e)
            }
            Err(_) => {
                let _ = keeper.join();
                Err("the thread that starts the server ended".into())
            }
        }
    }

    /// Stops the server (immediate shutdown: every backend ends at once, nothing is kept),
    /// then removes its directory.
    fn stop(self) {
        drop(self.stop);
        let _ = self.keeper.join();
        let _ = std::fs::remove_dir_all(self.dir.path());
    }
}

/// The keeper thread: starts the postmaster, says whether it became ready, waits until
/// told to stop (or the cluster is dropped), then stops it with SIGQUIT and reaps it.
fn keep(
    mut postgres: Command,
    data: &Path,
    log: &Path,
    ready: mpsc::Sender<Result<(), String>>,
    stop: mpsc::Receiver<()>,
) {
    let mut postmaster = match postgres.spawn() {
        Ok(child) => child,
        Err(e) => {
            let why = format!("postgres could not start ({e})");
            let _ = ready.send(Err(no_server_message(&why)));
            return;
        }
    };
    let up = wait_until_ready(&mut postmaster, data, log);
    let ok = up.is_ok();
    let _ = ready.send(up);
    if ok {
        let _ = stop.recv();
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(postmaster.id() as libc::pid_t, libc::SIGQUIT) };
    let _ = postmaster.wait();
}

/// Waits until the postmaster says it accepts connections (the status line of
/// `postmaster.pid`, as `pg_ctl -w` reads it), or has exited.
fn wait_until_ready(postmaster: &mut Child, data: &Path, log: &Path) -> Result<(), String> {
    let pid_file = data.join("postmaster.pid");
    for _ in 0..60_000 {
        if let Ok(Some(status)) = postmaster.try_wait() {
            let log = std::fs::read_to_string(log).unwrap_or_default();
            return Err(format!(
                "the PostgreSQL server exited ({status}): {}",
                log.trim()
            ));
        }
        let text = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if text.lines().nth(7).is_some_and(|s| s.trim() == "ready") {
            return Ok(());
        }
        // Server start-up, not a statement: nothing is decided by this wait but when to
        // look at the file again.
        std::thread::sleep(std::time::Duration::from_millis(1)); // start-up-ok: not a statement
    }
    Err("the PostgreSQL server did not become ready in a minute".into())
}

/// The server's settings: no TCP port, no durability (a throwaway cluster: a crash the
/// simulator makes is a backend's, never the server's), no background job that could
/// change what a run sees (autovacuum), and no timer that decides anything (deadlocks are
/// resolved by the tool, see `session`).
const SETTINGS: &[&str] = &[
    "listen_addresses=",
    "fsync=off",
    "synchronous_commit=off",
    "full_page_writes=off",
    "autovacuum=off",
    "max_connections=200",
    "shared_buffers=16MB",
    "deadlock_timeout=1h",
    "max_locks_per_transaction=128",
    "log_min_messages=fatal",
    "log_min_error_statement=panic",
];

/// The folder holding `initdb` and `postgres`: `PG_BIN`, PATH, or the distribution's usual
/// place (the newest version there).
fn binaries() -> Result<PathBuf, String> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("postgres").is_file();
    if let Some(dir) = std::env::var_os("PG_BIN").map(PathBuf::from) {
        return match has(&dir) {
            true => Ok(dir),
            false => Err(no_server_message(&format!(
                "PG_BIN ({}) holds no initdb and postgres",
                dir.display()
            ))),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(dir) = std::env::split_paths(&path).find(|d| has(d)) {
        return Ok(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, d)| has(d))
        .collect();
    versions.sort();
    versions.pop().map(|(_, d)| d).ok_or_else(|| {
        no_server_message(
            "no initdb and postgres were found on PATH, in PG_BIN or under /usr/lib/postgresql",
        )
    })
}

/// The account the server runs as: this user, or, as root (which PostgreSQL refuses),
/// the unprivileged `postgres` account the distribution's package creates.
struct Account {
    /// `Some((uid, gid))` when the server must run as another account.
    switch: Option<(libc::uid_t, libc::gid_t)>,
}

impl Account {
    fn for_server() -> Result<Account, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Ok(Account { switch: None });
        }
        let name = std::ffi::CString::new("postgres").expect("no NUL");
        // SAFETY: getpwnam with a valid C string; the record is copied out at once.
        let pw = unsafe { libc::getpwnam(name.as_ptr()) };
        if pw.is_null() {
            return Err(
                "PostgreSQL refuses to run as root, and this machine has no `postgres` \
                 account to start it as. Run the tool as an ordinary user, or create the \
                 account (`useradd --system --home /var/lib/postgresql postgres`, which \
                 Debian's postgresql package does), or name an existing server with \
                 --database-url."
                    .into(),
            );
        }
        // SAFETY: non-null, just returned by getpwnam.
        let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
        Ok(Account {
            switch: Some((uid, gid)),
        })
    }

    /// Makes `path` the server account's.
    fn own(&self, path: &Path) -> Result<(), String> {
        if let Some((uid, gid)) = self.switch {
            std::os::unix::fs::chown(path, Some(uid), Some(gid)).map_err(|e| {
                format!(
                    "cannot give {} to the postgres account: {e}",
                    path.display()
                )
            })?;
        }
        Ok(())
    }

    /// Runs `command` as the server account; a `server` runs in a session of its own and
    /// is sent SIGQUIT if the tool dies.
    fn apply(&self, command: &mut Command, server: bool) {
        use std::os::unix::process::CommandExt;
        let switch = self.switch;
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if server && libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if let Some((uid, gid)) = switch {
                    if libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setgid(gid) != 0
                        || libc::setuid(uid) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                // After the switch: a change of credentials clears the parent-death signal.
                if server && libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGQUIT) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

/// A 0700 directory for the cluster under the system's temporary directory, owned by the
/// server's account.
fn private_dir(account: &Account) -> Result<tempfile::TempDir, String> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("delivery-sim-pg-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| format!("cannot make a temporary directory for the cluster: {e}"))?;
    account.own(dir.path())?;
    if let Some((uid, gid)) = account.switch {
        if let Some(closed) = closed_ancestor(dir.path(), uid, gid) {
            return Err(format!(
                "PostgreSQL refuses to run as root, so the tool starts its cluster as the \
                 postgres account, in a private directory under the temporary directory; \
                 but that account cannot enter {} (mode {:o}), so the server could not read \
                 its own files. Point TMPDIR at a directory every account can enter (such as \
                 /tmp), run the tool as an ordinary user, or name an existing server with \
                 --database-url.",
                closed.0.display(),
                closed.1
            ));
        }
    }
    Ok(dir)
}

/// The first ancestor of `dir` that user `uid` of group `gid` cannot enter, with its mode.
fn closed_ancestor(dir: &Path, uid: u32, gid: u32) -> Option<(PathBuf, u32)> {
    use std::os::unix::fs::MetadataExt;
    dir.ancestors().skip(1).find_map(|a| {
        let m = std::fs::metadata(a).ok()?;
        let mode = m.mode() & 0o7777;
        let enters = (m.uid() == uid && mode & 0o100 != 0)
            || (m.gid() == gid && mode & 0o010 != 0)
            || mode & 0o001 != 0;
        (!enters).then(|| (a.to_path_buf(), mode))
    })
}
