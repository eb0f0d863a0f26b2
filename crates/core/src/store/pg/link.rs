//! A run's connection held by another process: how `crosscheck` gives consumer 0's
//! PostgreSQL connection to a real process and kills that process with SIGKILL at a crash
//! point, so that what PostgreSQL keeps is what it keeps of a client that vanished, not
//! what `pg_terminate_backend` (the simulator's crash) leaves.
//!
//! [`Link`] is the parent's side, which the run's [`super::session::RunDb`] sends that
//! actor's statements through instead of its own client; [`Held`] is the far side, the
//! connection itself, in the process that holds it. The statements, their settings and
//! their answers are the same either way: only who holds the socket, and how it dies,
//! differ.

use super::wire::{self, Answer, Target};
use serde::{Deserialize, Serialize};
use tokio_postgres::Client;

/// Where a held connection goes, with the run's settings for it (its isolation level, its
/// random stream, the search path of the deterministic functions).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkTarget {
    pub target: Target,
    pub dbname: String,
    pub options: Vec<(String, String)>,
}

/// A connection of the run held by another process.
pub trait Link {
    /// Starts the process and its connection to `to`: the backend's pid.
    fn open(&mut self, to: &LinkTarget) -> Result<i32, String>;
    /// Runs `sql` (the tool's own statements first, `skip` of them) on the connection and
    /// waits for its answer (a held connection is alone on its database: nothing can
    /// block it). A failure of the process is an answer with an empty SQLSTATE, and the
    /// link keeps it for its owner to report.
    /// With `typed`, the statement whose columns' types the answer carries (prepared
    /// first on the same connection, as [`super::session::RunDb::execute_typed`] does).
    fn run(&mut self, sql: &str, skip: usize, typed: Option<&str>) -> Answer;
    /// Kills the process (SIGKILL): its socket closes, and PostgreSQL rolls back what the
    /// backend had open when it reads the end of it.
    fn kill(&mut self);
}

/// The connection itself, in the process that holds it.
pub struct Held {
    rt: tokio::runtime::Runtime,
    client: Client,
}

impl Held {
    /// Connects to `to`: the connection and its backend's pid.
    pub fn connect(to: &LinkTarget) -> Result<(Held, i32), String> {
        let rt = wire::runtime()?;
        let options: Vec<(&str, String)> = (to.options.iter())
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        let client = rt.block_on(wire::connect(&rt, &to.target, &to.dbname, &options))?;
        let held = Held { rt, client };
        let pid = held
            .run("SELECT pg_catalog.pg_backend_pid()", 0, None)
            .map_err(|e| e.message)?;
        let pid = (pid.rows.first().and_then(|r| r.first().cloned().flatten()))
            .and_then(|p| p.parse().ok())
            .ok_or("the new connection did not say its backend's pid")?;
        Ok((held, pid))
    }

    /// Runs `sql` as [`Link::run`] says, waiting for the answer.
    pub fn run(&self, sql: &str, skip: usize, typed: Option<&str>) -> Answer {
        self.rt.block_on(async {
            let types = match typed {
                Some(statement) => match self.client.prepare(statement).await {
                    Ok(s) => s.columns().iter().map(|c| c.type_().oid()).collect(),
                    Err(_) => Vec::new(),
                },
                None => Vec::new(),
            };
            let mut answer = wire::simple(&self.client, sql, skip).await;
            if let Ok(ran) = &mut answer {
                ran.types = types;
            }
            answer
        })
    }
}
