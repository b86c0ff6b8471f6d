//! `gather bench workers`: 1, 2, 4… workers on a PostgreSQL gatherer
//! database against a provider that answers slowly, side by side with one
//! process on a SQLite file: throughput, and CPU per result page (the
//! gatherer's processes and, for PostgreSQL, the server's).

use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use gather::demo::postgres::LocalPostgres;
use gather::demo::slow::{SlowConfig, SlowSite};

#[derive(Debug, clap::Args)]
pub struct WorkersBenchArgs {
    /// Queries in the provider's plan (one result page each).
    #[arg(long, default_value_t = 400)]
    pub queries: usize,
    /// Milliseconds the provider takes for every answer.
    #[arg(long, default_value_t = 50)]
    pub latency_ms: u64,
    /// Queries in flight per worker.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Worker counts to measure, comma-separated.
    #[arg(long, default_value = "1,2,4", value_delimiter = ',')]
    pub workers: Vec<usize>,
    /// Rounds, each a run of SQLite and of every worker count in turn;
    /// medians are reported.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Instead of the worker counts: a planner and two workers undisturbed,
    /// with one worker killed (kill -9) half way, and with the database
    /// stopped for 5 s half way (every process must carry on): run times,
    /// and the result pages asked twice.
    #[arg(long)]
    pub faults: bool,
}

/// One measured gathering.
#[derive(Debug, Clone, Copy)]
struct Sample {
    seconds: f64,
    pages: f64,
    /// CPU seconds of the gatherer's processes.
    gather_cpu: f64,
    /// CPU seconds of the database server (0 for SQLite).
    db_cpu: f64,
}

impl Sample {
    fn pages_per_second(&self) -> f64 {
        self.pages / self.seconds
    }

    fn cpu_ms_per_page(&self) -> f64 {
        (self.gather_cpu + self.db_cpu) / self.pages.max(1.0) * 1000.0
    }
}

pub fn run(args: &WorkersBenchArgs) -> ExitCode {
    match measure(args) {
        Ok(()) => crate::cli::exit(crate::cli::OK),
        Err(e) => {
            eprintln!("gather bench workers: {e}");
            crate::cli::exit(crate::cli::FAILED)
        }
    }
}

fn measure(args: &WorkersBenchArgs) -> Result<(), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let site = runtime
        .block_on(SlowSite::start(SlowConfig {
            queries: args.queries,
            pages: 1,
            latency: Duration::from_millis(args.latency_ms),
        }))
        .map_err(|e| format!("cannot start the provider: {e:#}"))?;
    let url = site.form_url().clone();
    let mut postgres = LocalPostgres::start()?;
    // A per-host limit that does not bind: every worker's queries in flight.
    let host_limit = args.workers.iter().max().copied().unwrap_or(1) * args.concurrency;
    let common = [
        "--json".to_string(),
        "--concurrency".into(),
        args.concurrency.to_string(),
        "--host-concurrency".into(),
        host_limit.to_string(),
    ];
    println!(
        "{} queries, {} ms per answer, {} queries in flight per worker, per-host limit {host_limit}; medians of {} runs",
        args.queries, args.latency_ms, args.concurrency, args.runs.max(1)
    );
    if args.faults {
        let faults = faults(&runtime, &mut postgres, &site, args, &common);
        runtime.shutdown_background();
        return faults;
    }

    // One round is a run of each kind in turn, so that a change of the
    // machine's load during the benchmark falls on all of them alike.
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut sqlite = Vec::new();
    let mut shared: Vec<Vec<Sample>> = vec![Vec::new(); args.workers.len()];
    for run in 0..args.runs.max(1) {
        let db = dir.path().join(format!("bench-{run}.sqlite"));
        let started = Instant::now();
        let child = spawn(&[url.as_str(), "--db", &db.to_string_lossy()], &common)?;
        let report = wait(child)?;
        sqlite.push(Sample {
            seconds: started.elapsed().as_secs_f64(),
            pages: report.0,
            gather_cpu: report.1,
            db_cpu: 0.0,
        });
        for (samples, &workers) in shared.iter_mut().zip(&args.workers) {
            let db = postgres.database(&format!("bench_{workers}_{run}"))?;
            samples.push(shared_run(
                &runtime,
                &postgres,
                &url,
                &db,
                workers.max(1),
                &common,
            )?);
        }
    }
    let base = medians(&sqlite);
    print_row("SQLite, 1 process", &base, None);
    let mut first: Option<Sample> = None;
    for (samples, workers) in shared.iter().zip(&args.workers) {
        let row = medians(samples);
        let one = *first.get_or_insert(row);
        print_row(
            &format!("PostgreSQL, {workers} worker(s)"),
            &row,
            Some((&one, &base)),
        );
    }
    runtime.shutdown_background();
    Ok(())
}

/// A planner and `workers - 1` more workers on a fresh database.
fn shared_run(
    runtime: &tokio::runtime::Runtime,
    postgres: &LocalPostgres,
    url: &url::Url,
    db: &str,
    workers: usize,
    common: &[String],
) -> Result<Sample, String> {
    // The backend that created the database ends and is counted before.
    std::thread::sleep(Duration::from_millis(300));
    let cpu_before = server_cpu(postgres);
    let started = Instant::now();
    let mut children = vec![spawn(&[url.as_str(), "--db", db], common)?];
    wait_for_plan(runtime, db)?;
    for _ in 1..workers {
        children.push(spawn(&["worker", "--db", db], common)?);
    }
    let mut sample = Sample {
        seconds: 0.0,
        pages: 0.0,
        gather_cpu: 0.0,
        db_cpu: 0.0,
    };
    for child in children {
        let (pages, cpu) = wait(child)?;
        sample.pages += pages;
        sample.gather_cpu += cpu;
    }
    sample.seconds = started.elapsed().as_secs_f64();
    // The backends of the closed connections end and are counted.
    std::thread::sleep(Duration::from_millis(300));
    sample.db_cpu = server_cpu(postgres) - cpu_before;
    Ok(sample)
}

/// What is done to a gathering of a planner and two workers half way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    /// kill -9 of a worker.
    Kill,
    /// The database server stopped (fast shutdown) for 5 s.
    Outage,
}

/// The run time of a gathering with `fault`, the result pages the
/// provider was asked more than once, and how long the database was away
/// (from the stop until it accepted connections again).
fn fault_run(
    runtime: &tokio::runtime::Runtime,
    postgres: &mut LocalPostgres,
    site: &SlowSite,
    db: &str,
    fault: Fault,
    queries: usize,
    common: &[String],
) -> Result<(f64, usize, f64), String> {
    let before = site.requests().len();
    let started = Instant::now();
    let url = site.form_url().clone();
    let mut children = vec![spawn(&[url.as_str(), "--db", db], common)?];
    wait_for_plan(runtime, db)?;
    for _ in 0..2 {
        children.push(spawn(&["worker", "--db", db], common)?);
    }
    while site.requests().len() - before < queries / 2 {
        if started.elapsed() > Duration::from_secs(120) {
            return Err("no progress within 2 minutes".into());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut away = 0.0;
    match fault {
        Fault::None => {}
        Fault::Kill => {
            let mut victim = children.remove(2);
            let killed = victim.kill();
            let _ = victim.wait();
            killed.map_err(|e| format!("cannot kill a worker: {e}"))?;
        }
        Fault::Outage => {
            let stopped = Instant::now();
            postgres.stop()?;
            std::thread::sleep(Duration::from_secs(5));
            postgres.restart()?;
            away = stopped.elapsed().as_secs_f64();
        }
    }
    for child in children {
        wait(child)?;
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut seen = std::collections::HashMap::new();
    for r in &site.requests()[before..] {
        *seen.entry((r.query.clone(), r.page)).or_insert(0usize) += 1;
    }
    let twice = seen.values().filter(|n| **n > 1).count();
    Ok((seconds, twice, away))
}

/// `--faults`: a planner and two workers undisturbed, with a worker
/// killed, and with the database away for 5 s; medians side by side.
fn faults(
    runtime: &tokio::runtime::Runtime,
    postgres: &mut LocalPostgres,
    site: &SlowSite,
    args: &WorkersBenchArgs,
    common: &[String],
) -> Result<(), String> {
    let kinds = [
        (Fault::None, "undisturbed"),
        (Fault::Kill, "a worker killed (kill -9) half way"),
        (Fault::Outage, "the database away 5 s half way"),
    ];
    let mut seconds: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    let mut twice: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    let mut away: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    for run in 0..args.runs.max(1) {
        for (n, (fault, _)) in kinds.iter().enumerate() {
            let db = postgres.database(&format!("faults_{n}_{run}"))?;
            let (s, t, a) = fault_run(runtime, postgres, site, &db, *fault, args.queries, common)?;
            seconds[n].push(s);
            twice[n].push(t as f64);
            away[n].push(a);
        }
    }
    println!("a planner and 2 workers; leases of 30 s (the default)");
    let calm = super::median(seconds[0].clone());
    for (n, (_, name)) in kinds.iter().enumerate() {
        let time = super::median(seconds[n].clone());
        let away = super::median(away[n].clone());
        let beyond = if away > 0.0 {
            format!(
                ", the database away {away:.2} s (stop to accepting again): {:+.2} s beyond it",
                time - calm - away
            )
        } else {
            String::new()
        };
        println!(
            "{name:<36} {time:>6.2} s ({:+.2} s against undisturbed{beyond})  result pages asked twice: {} (median)",
            time - calm,
            super::median(twice[n].clone())
        );
    }
    Ok(())
}

/// Waits until the planner has put its plan into `db`, asking on one
/// connection (what the database spends on it counts for the run, as
/// little as can be).
fn wait_for_plan(runtime: &tokio::runtime::Runtime, db: &str) -> Result<(), String> {
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(db, tokio_postgres::NoTls)
            .await
            .map_err(|e| format!("cannot connect to {db}: {e}"))?;
        // Ends when the client is dropped.
        tokio::spawn(connection);
        let deadline = Instant::now() + Duration::from_secs(60);
        // The schema comes first (one transaction), then the plan (one more).
        let mut asking = "SELECT to_regclass('queries') IS NOT NULL";
        loop {
            let yes = client
                .query_one(asking, &[])
                .await
                .map_err(|e| format!("cannot read {db}: {e}"))?;
            if yes.get::<_, bool>(0) {
                if asking.contains("EXISTS") {
                    return Ok(());
                }
                asking = "SELECT EXISTS (SELECT 1 FROM queries)";
                continue;
            }
            if Instant::now() > deadline {
                return Err("the planner made no plan within 60 s".into());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
}

fn spawn(args: &[&str], common: &[String]) -> Result<Child, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    Command::new(exe)
        .args(args)
        .args(common)
        .env_remove("GATHER_DB")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run the gatherer: {e}"))
}

/// Result pages and CPU seconds of one gatherer process, from its summary.
fn wait(child: Child) -> Result<(f64, f64), String> {
    let output = child
        .wait_with_output()
        .map_err(|e| format!("the gatherer: {e}"))?;
    if !output.status.success() {
        return Err(format!("the gatherer exited with {}", output.status));
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cannot read the gatherer's summary: {e}"))?;
    let pages: f64 = report["sources"]
        .as_array()
        .map(|s| s.iter().filter_map(|s| s["pages"].as_f64()).sum())
        .unwrap_or_default();
    let cpu = report["cpu_seconds"].as_f64().unwrap_or(f64::NAN);
    Ok((pages, cpu))
}

/// CPU seconds the database server has used: the postmaster with its
/// ended children, and the children alive.
fn server_cpu(postgres: &LocalPostgres) -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let processes = postgres.processes();
    let fields = |pid: u32| -> Vec<f64> {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| stat.rsplit_once(')').map(|(_, rest)| rest.to_string()))
            .map(|rest| {
                rest.split_whitespace()
                    .map(|f| f.parse::<f64>().unwrap_or(0.0))
                    .collect()
            })
            .unwrap_or_default()
    };
    // After the command name: state is field 0, utime 11, stime 12,
    // cutime 13, cstime 14.
    let own = |f: &[f64]| f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0);
    let mut total = 0.0;
    for (n, pid) in processes.iter().enumerate() {
        let f = fields(*pid);
        total += own(&f);
        if n == 0 {
            total += f.get(13).unwrap_or(&0.0) + f.get(14).unwrap_or(&0.0);
        }
    }
    total / ticks
}

fn medians(samples: &[Sample]) -> Sample {
    let m = |f: fn(&Sample) -> f64| super::median(samples.iter().map(f).collect());
    Sample {
        seconds: m(|s| s.seconds),
        pages: m(|s| s.pages),
        gather_cpu: m(|s| s.gather_cpu),
        db_cpu: m(|s| s.db_cpu),
    }
}

fn print_row(name: &str, row: &Sample, against: Option<(&Sample, &Sample)>) {
    let mut line = format!(
        "{name:<28} {:>6.2} s  {:>7.1} result pages/s  CPU {:>6.2} ms per page (gather {:.2} s, database {:.2} s, {} pages)",
        row.seconds,
        row.pages_per_second(),
        row.cpu_ms_per_page(),
        row.gather_cpu,
        row.db_cpu,
        row.pages
    );
    if let Some((one, sqlite)) = against {
        line.push_str(&format!(
            "  throughput x{:.2} of 1 worker, CPU per page x{:.2} of SQLite",
            row.pages_per_second() / one.pages_per_second(),
            row.cpu_ms_per_page() / sqlite.cpu_ms_per_page()
        ));
    }
    println!("{line}");
}
