//! The real consumer process: spawned, spoken to over its pipes, killed with SIGKILL at a
//! crash point, closed at the end.

use super::*;

/// The consumer process, seen from the parent: killed on drop if it is still running.
pub(super) struct ChildProcess {
    child: std::process::Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl ChildProcess {
    /// Starts `exe __consumer` on the SQLite file `setup` names: the process, once it
    /// opened the file.
    pub(super) fn spawn(exe: &Path, setup: &Setup) -> Result<ChildProcess, RealError> {
        let mut p = ChildProcess::start(exe)?;
        p.send(&ToChild::Setup(setup.clone()))?;
        match p.recv()? {
            FromChild::Opened => Ok(p),
            other => Err(RealError::Protocol(format!(
                "expected opened, got {other:?}"
            ))),
        }
    }

    /// Starts `exe __consumer`, told nothing yet.
    pub(super) fn start(exe: &Path) -> Result<ChildProcess, RealError> {
        let mut child = Command::new(exe)
            .arg(CHILD_COMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|error| RealError::Spawn {
                exe: exe.to_path_buf(),
                error,
            })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Ok(ChildProcess {
            child,
            stdin,
            stdout,
        })
    }

    pub(super) fn send(&mut self, m: &ToChild) -> Result<(), RealError> {
        Ok(wire::send(&mut self.stdin, m)?)
    }

    pub(super) fn recv(&mut self) -> Result<FromChild, RealError> {
        match wire::recv(&mut self.stdout) {
            Err(WireError::Closed) => {
                let status = self.child.wait()?;
                Err(RealError::Protocol(format!(
                    "the consumer process ended unexpectedly ({status})"
                )))
            }
            other => Ok(other?),
        }
    }

    /// SIGKILL (what `Child::kill` sends on Unix), then reap it.
    pub(super) fn kill(&mut self) -> Result<(), RealError> {
        self.child.kill()?;
        let status = self.child.wait()?;
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            if status.signal() != Some(9) {
                return Err(RealError::Protocol(format!(
                    "the consumer process was to die of SIGKILL, it ended with {status}"
                )));
            }
        }
        Ok(())
    }

    /// Ends a process that is still in a turn-less wait: returns whether it had a
    /// transaction open (rolled back on the way out).
    pub(super) fn close(&mut self) -> Result<bool, RealError> {
        self.send(&ToChild::Close)?;
        let rolled_back = match self.recv()? {
            FromChild::Closed { rolled_back } => rolled_back,
            other => {
                return Err(RealError::Protocol(format!(
                    "expected closed, got {other:?}"
                )))
            }
        };
        let status = self.child.wait()?;
        if !status.success() {
            return Err(RealError::Protocol(format!(
                "the consumer process exited with {status}"
            )));
        }
        Ok(rolled_back)
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
