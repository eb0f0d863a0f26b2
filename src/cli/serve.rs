//! `serve`: the classroom page behind a small HTTP server (hyper, on one tokio thread) on
//! 127.0.0.1, with a scenario editor: `GET /` is the playground page (every file of
//! `scenarios/` compiled in as an example), `POST /api/run` and `POST /api/explore?depth=D`
//! take a scenario in the body and answer with the data of a run page or an exploration
//! page, which the playground shows as the static pages do. An exploration's answer tells
//! no run up front (telling 120 runs took most of it): it lists them with their crash
//! points, and the page asks `POST /api/story?crash=P&crash=Q` with the same scenario for
//! the story of the run it opens.
//!
//! Requests are answered concurrently. The thread that accepts connections (each cut off
//! after [`CONNECTION_TIMEOUT`]) answers the page and every refusal itself, at once; a run
//! or an exploration is a job made on a thread of its own ([`jobs`]), at most
//! [`jobs::MAX_JOBS`] at once, past which a request is answered 503 with `Retry-After`.
//! Each job is bounded tighter than the CLI (so that an answer comes in seconds:
//! [`MAX_EVENTS`], [`MAX_DEPTH`], [`MAX_SCHEDULES`], [`MAX_STEPS`], and the body at
//! [`bounds::MAX_SCENARIO_BYTES`]); any bad input is an answer (400, 403, 404, 405, 413,
//! 415), a panic is caught and answered (500), and the server goes on. It binds loopback
//! only, refuses a request whose `Host` is not loopback (a DNS-rebinding page cannot talk
//! to it), refuses a POST sent by a page of any other origin (403) or whose body is not
//! declared as `application/json` (415: a form or a `text/plain` fetch needs no CORS
//! preflight, so any page the user visits could otherwise make it work), and writes no
//! file. Its own refusals are worded in its `--lang`.

mod jobs;

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
        CliError::usage(Usage::CannotListen {
            port: args.port,
            io: Io::from(e),
        })
    };
    let listener = std::net::TcpListener::bind(("127.0.0.1", args.port)).map_err(cannot)?;
    listener.set_nonblocking(true).map_err(cannot)?;
    let port = listener.local_addr().map_err(cannot)?.port();
    let lang = language(args.lang);
    let server = std::sync::Arc::new(Server {
        port,
        lang,
        home: pages::playground_page(EXAMPLES, lang).html(),
        jobs: jobs::Jobs::new(std::env::var_os(jobs::TEST_HOLD_VAR).is_some()),
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
    // One thread: connections wait on it concurrently and the cheap answers are made on it;
    // a request's work (a run, an exploration) is done on a thread of the blocking pool.
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
    jobs: jobs::Jobs,
}

/// What the server answers.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: String,
    /// Seconds after which a refused client may try again (`Retry-After`).
    retry_after: Option<u32>,
}

impl Reply {
    fn error(status: u16, message: String) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: serde_json::json!({ "error": message }).to_string(),
            retry_after: None,
        }
    }

    /// A page's data as JSON.
    fn page(page: &Page) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            body: serde_json::to_string(page).expect("a page serialises"),
            retry_after: None,
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
        let builder = match self.retry_after {
            Some(seconds) => builder.header("Retry-After", seconds.to_string()),
            None => builder,
        };
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
/// body (bounded), and answers: the page and the refusals here, a run or an exploration as
/// a job (see [`jobs`]), off this thread, or 503 when [`jobs::MAX_JOBS`] are under way.
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
    let path = uri.path();
    let job = match (method.as_str(), path) {
        ("GET", "/") => {
            return Reply {
                status: 200,
                content_type: "text/html",
                body: server.home.clone(),
                retry_after: None,
            }
            .response(gzip)
        }
        ("POST", "/api/run") => jobs::Job::Run,
        ("POST", "/api/explore") => jobs::Job::Explore,
        ("POST", "/api/story") => jobs::Job::Story,
        (_, "/" | "/api/run" | "/api/explore" | "/api/story") => {
            let method = method.as_str();
            return refuse(405, ServeRefusal::Method { method });
        }
        _ => return refuse(404, ServeRefusal::NotFound { path }),
    };
    let query = uri.query().unwrap_or("").to_string();
    work(server, job, query, body, gzip).await
}

/// Makes `job` on a thread of the blocking pool, if one of the [`jobs::MAX_JOBS`] places
/// is free (else 503 with `Retry-After`): the thread makes the whole answer, compressed,
/// then gives its place back; a panic is answered 500.
async fn work(
    server: &Server,
    job: jobs::Job,
    query: String,
    body: hyper::body::Bytes,
    gzip: bool,
) -> hyper::Response<Body> {
    let lang = server.lang;
    let Some(permit) = server.jobs.start() else {
        let jobs = jobs::MAX_JOBS;
        let mut busy = Reply::error(503, lang.serve_refusal(ServeRefusal::Busy { jobs }));
        busy.retry_after = Some(jobs::RETRY_AFTER_SECONDS);
        return busy.response(gzip);
    };
    let work = tokio::task::spawn_blocking(move || {
        let reply = std::panic::catch_unwind(|| jobs::answer(&permit, job, &query, &body, lang))
            .unwrap_or_else(|_| Reply::error(500, lang.serve_refusal(ServeRefusal::Failed)));
        let response = reply.response(gzip);
        drop(permit);
        response
    });
    match work.await {
        Ok(response) => response,
        Err(_) => Reply::error(500, lang.serve_refusal(ServeRefusal::Failed)).response(gzip),
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
