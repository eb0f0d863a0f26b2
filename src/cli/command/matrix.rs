//! `matrix`: every built-in protocol against every crash point.

use crate::cli::*;
use crate::model::{Engine, Isolation};

pub(in crate::cli) fn matrix(args: &MatrixArgs) -> Result<(String, ExitCode), CliError> {
    refuse_out_for_a_folder("matrix", &args.out)?;
    let events = events_arg("--events", args.events)?;
    let protocols = Protocol::all_built_in();
    for p in &protocols {
        let mut s = Scenario::new(p.clone());
        s.workload.events = events;
        s.seed = args.seed;
        // The matrix has no --max-schedules: its columns explore with the most.
        explore_options(&s, args.depth, MAX_SCHEDULES_CEILING)?;
    }
    let (engine, isolation) = matrix_engine(args)?;
    let columns = explore::matrix_on(&protocols, events, args.seed, args.depth, engine, isolation);
    let limited: Vec<&str> = columns
        .iter()
        .filter(|c| c.summaries.iter().any(|s| s.memory_limited))
        .map(|c| c.protocol.name.as_str())
        .collect();
    let held = columns.iter().all(|c| c.as_documented()) && limited.is_empty();
    let json = json::matrix_json(&columns, events, args.seed, args.depth);
    let mut out = if args.json {
        to_json(&json)
    } else {
        text::matrix_text(language(args.lang), &columns, events, args.seed, args.depth)
    };
    if !limited.is_empty() && !args.json {
        out.push_str(&truncated_line(language(args.lang), &limited));
    }
    let page = || {
        let command = format!(
            "delivery-sim matrix --depth {} --events {events} --seed {}{}",
            args.depth,
            args.seed,
            engine_flags(engine, isolation)
        );
        let lang = language(args.lang);
        let tell = |s: &Scenario| view::run_and_watch(&world::InProcess, s);
        html::matrix_page(
            &tell, &columns, events, args.seed, args.depth, lang, &command,
        )
    };
    if let Some(path) = &args.html {
        write_html(path, &page(), language(args.lang))?;
    }
    if let Some(dir) = &args.out_dir {
        let write = |name: &str, content: &str| -> Result<PathBuf, CliError> {
            let path = dir.join(name);
            atomic::write(&path, content.as_bytes())
                .map_err(|e| CliError::usage(cannot_write("--out-dir", &path, Act::Write, e)))?;
            Ok(path)
        };
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::usage(cannot_write("--out-dir", dir, Act::Create, e)))?;
        let md = write(
            "matrix.md",
            &markdown::matrix_markdown(&columns, events, args.seed, args.depth),
        )?;
        let js = write("matrix.json", &to_json(&json))?;
        // The committed page opens in English, as matrix.md is written, whatever the
        // machine's language.
        let mut page = page();
        page.lang = Lang::En.code();
        let html = write("matrix.html", &page.html())?;
        // A status line, not a result: stderr, with or without --json.
        let written = [
            md.display().to_string(),
            js.display().to_string(),
            html.display().to_string(),
        ];
        eprintln!("{}", language(args.lang).status_wrote(&written));
    }
    Ok((out, code(held)))
}

/// The engine and level the matrix runs on: SQLite unless `--engine postgres` (and then
/// `--isolation`, default read committed); PostgreSQL is reached before any work.
fn matrix_engine(args: &MatrixArgs) -> Result<(Engine, Isolation), CliError> {
    let (engine, isolation) = crate::scenario::engine_overridden();
    match engine.unwrap_or_default() {
        Engine::Sqlite => {
            let flag = if isolation.is_some() {
                Some("--isolation")
            } else {
                args.engine.database_url.as_ref().map(|_| "--database-url")
            };
            if let Some(flag) = flag {
                let flag = flag.to_string();
                return Err(CliError::usage(EngineUse::MatrixOnSqlite { flag }));
            }
            Ok((Engine::Sqlite, Isolation::default()))
        }
        Engine::Postgres => {
            crate::store::pg::ready().map_err(not_ready)?;
            Ok((Engine::Postgres, isolation.unwrap_or_default()))
        }
    }
}

/// The flags that repeat the engine choice in a command line.
fn engine_flags(engine: Engine, isolation: Isolation) -> String {
    match engine {
        Engine::Sqlite => String::new(),
        Engine::Postgres => format!(
            " --engine postgres --isolation {}",
            isolation.name().replace('_', "-")
        ),
    }
}

/// The line under a matrix whose explorations the memory budget stopped.
fn truncated_line(lang: Lang, limited: &[&str]) -> String {
    let mib = explore::budget::KEPT_RUNS_BYTES >> 20;
    let limited = limited.join(", ");
    match lang {
        Lang::En => format!(
            "\nTRUNCATED  {limited}: limit: the exploration stopped at the {mib} MiB its kept \
             runs may take (every command stays within 1 GiB): what it says covers those runs \
             only; lower --depth or --events\n"
        ),
        Lang::Es => format!(
            "\nTRUNCADO  {limited}: límite: la exploración se detuvo en los {mib} MiB que pueden \
             ocupar sus corridas guardadas (todo comando se queda dentro de 1 GiB): lo que dice \
             cubre solo esas corridas; bajá --depth o --events\n"
        ),
    }
}
