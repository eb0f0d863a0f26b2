//! `serve`: the classroom page behind a small HTTP server (hyper, on one tokio thread) on
//! 127.0.0.1, with a scenario editor: `GET /` is the playground page (every file of
//! `scenarios/` compiled in as an example), `POST /api/run` and `POST /api/explore?depth=D`
//! take a scenario in the body and answer with the data of a run page or an exploration
//! page, which the playground shows as the static pages do.
//!
//! It works on one request at a time (connections wait concurrently, each cut off after
//! [`CONNECTION_TIMEOUT`]), each bounded tighter than the CLI (so that an answer
//! comes in seconds: [`MAX_EVENTS`], [`MAX_DEPTH`], [`MAX_SCHEDULES`], [`MAX_STEPS`], and
//! the body at [`bounds::MAX_SCENARIO_BYTES`]); any bad input is an answer (400, 403,
//! 404, 405, 413, 415), a panic is caught and answered (500), and the server goes on. It
//! binds loopback only, refuses a request whose `Host` is not loopback (a DNS-rebinding page
//! cannot talk to it), refuses a POST sent by a page of any other origin (403) or whose
//! body is not declared as `application/json` (415: a form or a `text/plain` fetch needs
//! no CORS preflight, so any page the user visits could otherwise make it work), and
//! writes no file. Its own refusals are worded in its `--lang`.

use crate::cli::*;
use crate::report::html::{self as pages, Page};
use crate::report::lang::ServeRefusal;

/// The most events a served scenario may publish.
pub const MAX_EVENTS: usize = 50;
/// The deepest exploration a served request may ask for.
pub const MAX_DEPTH: usize = 2;
/// The most schedules a served exploration may need (estimated up front).
pub const MAX_SCHEDULES: u64 = 5_000;
/// The most consumer steps per phase of a served run (`limits.max_steps`).
pub const MAX_STEPS: u64 = 200_000;
/// The most consumer steps a served exploration may need, estimated up front.
pub const MAX_EXPLORE_STEPS: u128 = 20_000_000;

/// The examples of the editor: every scenario file, by name.
const EXAMPLES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// How long one connection may stay open: an idle or slow client is cut off, and the
/// server goes on with the others.
const CONNECTION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// `serve --port N`: serves until killed. Prints the address to open on stdout.
pub(in crate::cli) fn serve(args: &ServeArgs) -> Result<(String, ExitCode), CliError> {
    let cannot = |e: std::io::Error| {
        CliError::Usage(format!(
            "--port: cannot listen on 127.0.0.1:{}: {e}",
            args.port
        ))
    };
    let listener = std::net::TcpListener::bind(("127.0.0.1", args.port)).map_err(cannot)?;
    listener.set_nonblocking(true).map_err(cannot)?;
    let port = listener.local_addr().map_err(cannot)?.port();
    let lang = language(args.lang);
    let server = std::sync::Arc::new(Server {
        port,
        lang,
        home: pages::playground_page(EXAMPLES, lang).html(),
    });
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "{}",
            lang.serve_listening(&format!("http://127.0.0.1:{port}/"))
        );
        let _ = out.flush();
    }
    // One thread: connections wait on it concurrently, and a request's work (a run, an
    // exploration) is done on it, one at a time.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(cannot)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).map_err(cannot)?;
        loop {
            // A failed accept (a client gone, too many open files) is that client's loss.
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let server = server.clone();
            let service = hyper::service::service_fn(move |request| {
                let server = server.clone();
                async move { Ok::<_, std::convert::Infallible>(respond(request, &server).await) }
            });
            tokio::spawn(async move {
                // A client may shut its side down once it has sent its request: it is
                // still answered.
                let connection = hyper::server::conn::http1::Builder::new()
                    .half_close(true)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                let _ = tokio::time::timeout(CONNECTION_TIMEOUT, connection).await;
            });
        }
    })
}

type Body = http_body_util::Full<hyper::body::Bytes>;

/// What every request is answered with: the server's port (its own origin and `Host`), its
/// language (its own refusals are worded in it) and the playground page.
struct Server {
    port: u16,
    lang: Lang,
    home: String,
}

/// What the server answers.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: String,
}

impl Reply {
    fn error(status: u16, message: String) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: serde_json::json!({ "error": message }).to_string(),
        }
    }

    /// The reply as a response, gzipped when the client takes gzip and it is worth it (an
    /// exploration's runs are tens of megabytes of JSON, a tenth of that compressed).
    fn response(self, gzip: bool) -> hyper::Response<Body> {
        let builder = hyper::Response::builder()
            .status(self.status)
            .header(
                "Content-Type",
                format!("{}; charset=utf-8", self.content_type),
            )
            .header("Cache-Control", "no-store")
            .header("X-Content-Type-Options", "nosniff");
        let (builder, bytes) = if gzip && self.body.len() > 4096 {
            use std::io::Write as _;
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            let zipped = gz
                .write_all(self.body.as_bytes())
                .and_then(|()| gz.finish())
                .expect("compressing into memory cannot fail");
            (builder.header("Content-Encoding", "gzip"), zipped)
        } else {
            (builder, self.body.into_bytes())
        };
        builder
            .body(Body::new(bytes.into()))
            .expect("a valid response")
    }
}

/// Answers one request: checks its host (and a POST's origin and content type), reads its
/// body (bounded), and hands the rest to [`answer`], whose panics are caught and answered.
async fn respond(
    request: hyper::Request<hyper::body::Incoming>,
    server: &Server,
) -> hyper::Response<Body> {
    use http_body_util::BodyExt as _;
    let gzip = request
        .headers()
        .get_all(hyper::header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').any(|e| e.trim().starts_with("gzip")));
    let refuse = |status: u16, why: ServeRefusal| {
        Reply::error(status, server.lang.serve_refusal(why)).response(gzip)
    };
    if !loopback_host(request.headers(), server.port) {
        return refuse(403, ServeRefusal::ForeignHost);
    }
    if request.method() == hyper::Method::POST {
        if let Some((status, message)) = refused_post(request.headers(), server) {
            return Reply::error(status, message).response(gzip);
        }
    }
    let limit = bounds::MAX_SCENARIO_BYTES;
    let declared = request
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return refuse(413, ServeRefusal::TooLarge { limit });
    }
    let method = request.method().clone();
    let uri = request.uri().clone();
    let body = match http_body_util::Limited::new(request.into_body(), limit)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            return refuse(413, ServeRefusal::TooLarge { limit })
        }
        Err(e) => {
            let error = e.to_string();
            return refuse(400, ServeRefusal::Unreadable { error: &error });
        }
    };
    let query = uri.query().unwrap_or("");
    std::panic::catch_unwind(|| answer(&method, uri.path(), query, &body, server))
        .unwrap_or_else(|_| Reply::error(500, server.lang.serve_refusal(ServeRefusal::Failed)))
        .response(gzip)
}

fn answer(method: &hyper::Method, path: &str, query: &str, body: &[u8], server: &Server) -> Reply {
    let refuse =
        |status: u16, why: ServeRefusal| Reply::error(status, server.lang.serve_refusal(why));
    match (method.as_str(), path) {
        ("GET", "/") => Reply {
            status: 200,
            content_type: "text/html",
            body: server.home.clone(),
        },
        ("POST", "/api/run" | "/api/explore") => {
            let Ok(text) = std::str::from_utf8(body) else {
                return refuse(400, ServeRefusal::NotUtf8);
            };
            let page = if path == "/api/run" {
                served_run(text)
            } else {
                depth(query).and_then(|d| served_exploration(text, d))
            };
            match page {
                Ok(page) => Reply {
                    status: 200,
                    content_type: "application/json",
                    body: serde_json::to_string(&page).expect("a page serialises"),
                },
                Err(message) => Reply::error(400, message),
            }
        }
        (_, "/" | "/api/run" | "/api/explore") => refuse(
            405,
            ServeRefusal::Method {
                method: method.as_str(),
            },
        ),
        _ => refuse(404, ServeRefusal::NotFound { path }),
    }
}

/// Why a POST is refused before its body is read, if it is: sent by a page of another
/// origin (403; `Origin: null` too: a sandboxed frame, a file), or with a body not declared
/// as JSON (415). A form or a `text/plain` fetch needs no CORS preflight, so any page the
/// user visits could otherwise make this server work; a page of this server's own origin
/// sends `Origin` with its own address, and a client that is not a browser (curl, the
/// tests) sends none.
fn refused_post(headers: &hyper::HeaderMap, server: &Server) -> Option<(u16, String)> {
    let origins: Vec<&hyper::header::HeaderValue> =
        headers.get_all(hyper::header::ORIGIN).iter().collect();
    if !origins.is_empty() {
        let own = ["127.0.0.1", "localhost"].map(|o| format!("http://{o}:{}", server.port));
        let origin = origins[0].to_str().unwrap_or("?");
        let ours = origins.len() == 1 && own.iter().any(|o| origin.eq_ignore_ascii_case(o));
        if !ours {
            let why = ServeRefusal::ForeignOrigin {
                origin,
                own: &own[0],
            };
            return Some((403, server.lang.serve_refusal(why)));
        }
    }
    let content_type = headers
        .get(hyper::header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("?"));
    let json = content_type.is_some_and(|c| {
        let essence = c.split(';').next().unwrap_or("").trim();
        essence.eq_ignore_ascii_case("application/json")
    });
    let why = ServeRefusal::NotJson { content_type };
    (!json).then(|| (415, server.lang.serve_refusal(why)))
}

/// Whether the request's one `Host` names this server on the loopback interface.
fn loopback_host(headers: &hyper::HeaderMap, port: u16) -> bool {
    let hosts: Vec<&hyper::header::HeaderValue> =
        headers.get_all(hyper::header::HOST).iter().collect();
    let [host] = hosts[..] else {
        return false;
    };
    let Ok(host) = host.to_str() else {
        return false;
    };
    let host = host.to_ascii_lowercase();
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|name| host == format!("{name}:{port}"))
}

fn depth(query: &str) -> Result<usize, String> {
    let value = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("depth="))
        .unwrap_or("1");
    match value.parse::<usize>() {
        Ok(d) if (1..=MAX_DEPTH).contains(&d) => Ok(d),
        _ => Err(format!(
            "depth: `{value}` is out of range; allowed here: 1 to {MAX_DEPTH}"
        )),
    }
}

/// The editor's scenario, validated as a file is, then held to the server's bounds.
fn scenario(text: &str) -> Result<Scenario, String> {
    let s = Scenario::from_json(text, "scenario.json").map_err(|e| e.to_string())?;
    if s.workload.events > MAX_EVENTS {
        return Err(format!(
            "workload.events: {} is over the {MAX_EVENTS} this server runs per request \
             (the command line takes up to {}: run it there)",
            s.workload.events,
            bounds::MAX_EVENTS
        ));
    }
    if s.limits.max_steps > MAX_STEPS {
        return Err(format!(
            "limits.max_steps: {} is over the {MAX_STEPS} this server runs per request \
             (the command line takes more: run it there)",
            s.limits.max_steps
        ));
    }
    Ok(s)
}

/// The replay command of a served run: the editor's text saved as `scenario.json`.
fn origin() -> Origin {
    Origin::File("scenario.json".into())
}

fn served_run(text: &str) -> Result<Page, String> {
    let s = scenario(text)?;
    let result = world::run(&s);
    let replay = origin().replay_command(s.seed, &[]);
    Ok(pages::run_page(&s, &[], &result, &replay, Lang::En))
}

fn served_exploration(text: &str, depth: usize) -> Result<Page, String> {
    let s = scenario(text)?;
    let options = explore_options(&s, depth, MAX_SCHEDULES).map_err(|e| {
        format!(
            "{e} (this server explores at most {MAX_SCHEDULES} schedules per request; the \
             command line, with --max-schedules, more)"
        )
    })?;
    let estimate = explore::estimate(&s, depth);
    if estimate.steps > MAX_EXPLORE_STEPS {
        return Err(format!(
            "exploring this scenario to depth {depth} may need {} steps, over the {} this \
             server spends per request: lower the depth or the events, or run `explore` on \
             the command line",
            estimate.steps, MAX_EXPLORE_STEPS
        ));
    }
    let x = explore::explore(&s, options);
    let command = origin().explore_command(s.seed, depth);
    Ok(pages::explore_page(&s, &x, &origin(), Lang::En, &command))
}
