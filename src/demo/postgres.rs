//! A PostgreSQL server of its own, for the tests and the benchmarks of
//! gathering with many workers: `initdb` into a temporary directory,
//! `postgres` on a free port of 127.0.0.1, stopped (and the directory
//! removed) when the [`LocalPostgres`] is dropped. It can be stopped and
//! started again on the same port and data directory in between (an
//! outage of the database, for the tests of workers that ride it out).
//!
//! PostgreSQL refuses to run as root: a root process runs the server as
//! the user `postgres` (which the Debian package creates). The binaries are
//! looked for in `$GATHER_PG_BIN`, then in `/usr/lib/postgresql/*/bin`
//! (the newest), then on `PATH`.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The user the server runs as, and whom it trusts on 127.0.0.1.
const USER: &str = "gather";

/// A running PostgreSQL server in a temporary directory.
pub struct LocalPostgres {
    server: Child,
    port: u16,
    bin: PathBuf,
    /// The uid and gid the server runs as, for a root process.
    owner: Option<(u32, u32)>,
    /// Holds the data directory; removed after the server stopped.
    dir: Option<tempfile::TempDir>,
}

/// Where the PostgreSQL binaries are, or why there are none.
fn bin_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("GATHER_PG_BIN") {
        let dir = PathBuf::from(dir);
        if !dir.join("initdb").exists() {
            return Err(format!(
                "PostgreSQL is not installed: no initdb in $GATHER_PG_BIN ({})",
                dir.display()
            ));
        }
        return Ok(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Ok(bin);
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .find(|dir| dir.join("initdb").exists() && dir.join("postgres").exists());
    on_path.ok_or_else(|| {
        "PostgreSQL is not installed: no initdb in $GATHER_PG_BIN, /usr/lib/postgresql/*/bin \
         or on PATH; install the OS package postgresql (./.ci/test does: apt-get install postgresql)"
            .to_string()
    })
}

/// The uid and gid of the user `postgres`, for a root process.
fn postgres_user() -> Result<Option<(u32, u32)>, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    let name = std::ffi::CString::new("postgres").map_err(|e| e.to_string())?;
    // SAFETY: the name is a valid C string; the record is copied out at once.
    let entry = unsafe { libc::getpwnam(name.as_ptr()) };
    if entry.is_null() {
        return Err(
            "PostgreSQL refuses to run as root, and there is no user postgres to run it as \
             (the OS package postgresql creates it)"
                .into(),
        );
    }
    // SAFETY: getpwnam returned a valid record.
    let (uid, gid) = unsafe { ((*entry).pw_uid, (*entry).pw_gid) };
    Ok(Some((uid, gid)))
}

fn free_port() -> Result<u16, String> {
    let listener =
        TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port on 127.0.0.1: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

impl LocalPostgres {
    /// Creates a cluster in a temporary directory and starts its server on
    /// a free port of 127.0.0.1; returns once it accepts connections.
    pub fn start() -> Result<LocalPostgres, String> {
        let bin = bin_dir()?;
        let owner = postgres_user()?;
        let dir = tempfile::Builder::new()
            .prefix("gather-postgres-")
            .tempdir()
            .map_err(|e| format!("cannot make a temporary directory: {e}"))?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid))
                .map_err(|e| format!("cannot give {} to postgres: {e}", dir.path().display()))?;
        }
        let data = dir.path().join("data");
        let mut initdb = Command::new(bin.join("initdb"));
        initdb.current_dir(dir.path()).arg("-D").arg(&data).args([
            "-U",
            USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ]);
        run(as_owner(&mut initdb, owner), "initdb")?;
        let port = free_port()?;
        let server = spawn_server(&bin, dir.path(), port, owner)?;
        let mut local = LocalPostgres {
            server,
            port,
            bin,
            owner,
            dir: Some(dir),
        };
        local.wait_ready()?;
        Ok(local)
    }

    /// Stops the server as `pg_ctl stop -m fast` does (every connection
    /// is ended); the data directory stays, for [`LocalPostgres::restart`].
    pub fn stop(&mut self) -> Result<(), String> {
        if matches!(self.server.try_wait(), Ok(Some(_))) {
            return Ok(());
        }
        let pid = self.server.id() as libc::pid_t;
        // SIGINT: the fast shutdown.
        // SAFETY: kill with a pid of our own child, which has not been reaped.
        unsafe { libc::kill(pid, libc::SIGINT) };
        let deadline = Instant::now() + Duration::from_secs(30);
        while matches!(self.server.try_wait(), Ok(None)) {
            if Instant::now() > deadline {
                return Err("the PostgreSQL server did not stop within 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Starts the stopped server again, on the same port and data
    /// directory; returns once it accepts connections.
    pub fn restart(&mut self) -> Result<(), String> {
        self.stop()?;
        let dir = self
            .dir
            .as_ref()
            .ok_or("the data directory is gone")?
            .path()
            .to_path_buf();
        self.server = spawn_server(&self.bin, &dir, self.port, self.owner)?;
        self.wait_ready()
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = self.server.try_wait() {
                return Err(format!(
                    "the PostgreSQL server ended at its start: {status}"
                ));
            }
            let ready = Command::new(self.bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err("the PostgreSQL server did not accept connections within 60 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Creates the database `name` and returns its URL,
    /// `postgres://gather@127.0.0.1:PORT/NAME`.
    pub fn database(&self, name: &str) -> Result<String, String> {
        let mut createdb = Command::new(self.bin.join("createdb"));
        createdb.args([
            "-h",
            "127.0.0.1",
            "-p",
            &self.port.to_string(),
            "-U",
            USER,
            name,
        ]);
        run(&mut createdb, "createdb")?;
        Ok(format!("postgres://{USER}@127.0.0.1:{}/{name}", self.port))
    }

    /// The process ids of the server and its backends, for measuring the
    /// CPU time the database spends.
    pub fn processes(&self) -> Vec<u32> {
        let root = self.server.id();
        let mut ids = vec![root];
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let parent = std::fs::read_to_string(entry.path().join("stat"))
                .ok()
                .and_then(|stat| {
                    let after = stat.rsplit_once(')')?.1.to_string();
                    after.split_whitespace().nth(1)?.parse::<u32>().ok()
                });
            if parent == Some(root) {
                ids.push(pid);
            }
        }
        ids
    }

    /// The data directory.
    pub fn data_dir(&self) -> Option<&Path> {
        self.dir.as_ref().map(|d| d.path())
    }
}

/// Starts `postgres` on the cluster in `dir` (its `data`), on `port` of
/// 127.0.0.1.
fn spawn_server(
    bin: &Path,
    dir: &Path,
    port: u16,
    owner: Option<(u32, u32)>,
) -> Result<Child, String> {
    let mut server = Command::new(bin.join("postgres"));
    server
        .current_dir(dir)
        .arg("-D")
        .arg(dir.join("data"))
        .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1"])
        .arg("-c")
        .arg(format!("unix_socket_directories={}", dir.display()))
        // As the SQLite file's synchronous=NORMAL: a crash of the
        // machine may lose the last commits, never corrupt them.
        .args(["-c", "synchronous_commit=off", "-c", "max_connections=200"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    as_owner(&mut server, owner)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.join("postgres").display()))
}

fn as_owner(command: &mut Command, owner: Option<(u32, u32)>) -> &mut Command {
    if let Some((uid, gid)) = owner {
        command.uid(uid).gid(gid);
    }
    command
}

fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

impl Drop for LocalPostgres {
    fn drop(&mut self) {
        if matches!(self.server.try_wait(), Ok(Some(_))) {
            drop(self.dir.take());
            return;
        }
        let pid = self.server.id() as libc::pid_t;
        // SIGINT: the fast shutdown (connections are ended).
        // SAFETY: kill with a pid of our own child.
        unsafe { libc::kill(pid, libc::SIGINT) };
        let deadline = Instant::now() + Duration::from_secs(20);
        while matches!(self.server.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        if matches!(self.server.try_wait(), Ok(None)) {
            let _ = self.server.kill();
            let _ = self.server.wait();
        }
        drop(self.dir.take());
    }
}
