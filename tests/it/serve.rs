//! `serve`: the real binary on a free port, sent a few hundred malformed, oversized,
//! misaddressed and out-of-bounds requests over raw TCP; each gets an answer (or a closed
//! connection for what is not HTTP), and the server still answers a good one after them.

use super::support::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStderr, ChildStdin, Stdio};
use std::time::Duration;

/// The server, killed when dropped.
pub struct Server {
    child: Child,
    pub port: u16,
    /// With its jobs held: its stdin (a line releases one job; closing it, every job) and
    /// its stderr (a line per job that waits).
    held: Option<(Option<ChildStdin>, BufReader<ChildStderr>)>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Returns once one more job is under way, waiting to be released.
    fn job_waits(&mut self) {
        let (_, stderr) = self.held.as_mut().expect("a server holding its jobs");
        let mut line = String::new();
        stderr.read_line(&mut line).expect("the server's stderr");
        assert!(line.contains("a job waits for a line on stdin"), "{line:?}");
    }

    /// Lets every job go, those waiting and those to come.
    fn release_jobs(&mut self) {
        let (stdin, _) = self.held.as_mut().expect("a server holding its jobs");
        drop(stdin.take());
    }
}

/// `serve --port 0`, started; the port it listens on.
pub fn start() -> Server {
    start_under(None)
}

/// `serve --port 0`, started under `ulimit -v limit_kib` when given.
pub fn start_under(limit_kib: Option<u64>) -> Server {
    start_with(&[], limit_kib)
}

/// `serve --port 0` with `args`, started under `ulimit -v limit_kib` when given.
pub fn start_with(args: &[&str], limit_kib: Option<u64>) -> Server {
    let bin = env!("CARGO_BIN_EXE_delivery-sim");
    let mut cmd = match limit_kib {
        Some(kib) => {
            let mut cmd = command("sh");
            cmd.arg("-c")
                .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
                .arg(bin);
            cmd
        }
        None => command(bin),
    };
    cmd.args(["serve", "--port", "0"]).args(args);
    spawn(cmd.stderr(Stdio::null()))
}

/// `serve --port 0` holding every job until [`Server::release_jobs`]: its test hook
/// (`DELIVERY_SIM_TEST_HOLD_JOBS`), which makes each job wait for a line on its stdin.
fn start_holding() -> Server {
    let mut cmd = command(env!("CARGO_BIN_EXE_delivery-sim"));
    cmd.args(["serve", "--port", "0"])
        .env("DELIVERY_SIM_TEST_HOLD_JOBS", "1")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped());
    let mut server = spawn(&mut cmd);
    let stdin = server.child.stdin.take();
    let stderr = BufReader::new(server.child.stderr.take().expect("stderr"));
    server.held = Some((stdin, stderr));
    server
}

fn spawn(cmd: &mut std::process::Command) -> Server {
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("serve prints its address");
    let port = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    Server {
        child,
        port,
        held: None,
    }
}

/// Sends `request` as is; the status code of the answer, if one came (`None` when the
/// server closed the connection without one).
pub fn send(port: u16, request: &[u8]) -> (Option<u16>, String) {
    answer_on(open(port, request))
}

/// A connection on which `request` was sent, its answer not read yet.
fn open(port: u16, request: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the server listens");
    // A guard against a hang, not a measurement: every answer here takes seconds at most.
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let _ = stream.write_all(request);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    stream
}

/// The answer on `stream`, read to its end, and its status code.
fn answer_on(mut stream: TcpStream) -> (Option<u16>, String) {
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).to_string();
    let status = answer
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| answer.strip_prefix("HTTP/1.0 "))
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok());
    (status, answer)
}

/// Whether nothing of an answer has come on `stream` yet (a read that would block).
fn unanswered(stream: &TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let pending = matches!(
        (&*stream).read(&mut [0u8; 1]),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
    );
    stream.set_nonblocking(false).unwrap();
    pending
}

/// A POST of `body` as JSON, as a client that is not a browser sends it (no `Origin`).
pub fn post(path: &str, host: &str, body: &[u8]) -> Vec<u8> {
    post_with(path, host, &["Content-Type: application/json"], body)
}

/// A POST of `body` with these `headers` (`Name: value` each) besides `Host`.
pub fn post_with(path: &str, host: &str, headers: &[&str], body: &[u8]) -> Vec<u8> {
    let mut request = format!("POST {path} HTTP/1.1\r\nHost: {host}\r\n");
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut request = request.into_bytes();
    request.extend_from_slice(body);
    request
}

/// A deterministic stream of bytes (xorshift), for garbage requests.
fn garbage(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn serve_survives_hundreds_of_bad_requests_then_answers_a_good_one() {
    let server = start();
    let port = server.port;
    let host = format!("127.0.0.1:{port}");
    let good = std::fs::read(root().join("scenarios/ack-first-crash-after-ack.json")).unwrap();
    let mut bad: Vec<(Vec<u8>, &[u16])> = Vec::new();
    for i in 0..80 {
        bad.push((garbage(i, 10 + 37 * i as usize), &[400, 404, 405, 505]));
    }
    for cut in (0..good.len()).step_by(good.len() / 100 + 1) {
        bad.push((post("/api/run", &host, &good[..cut]), &[400]));
    }
    for i in 0..40 {
        bad.push((
            post("/api/explore?depth=1", &host, &garbage(i, 200)),
            &[400],
        ));
    }
    let text = String::from_utf8(good.clone()).unwrap();
    for (from, to) in [
        ("\"seed\"", "\"sead\""),
        ("{", "["),
        ("\"seed\": 7", "\"seed\": -7"),
        ("\"protocol\": \"ack-first\"", "\"protocol\": \"no-such\""),
    ] {
        bad.push((
            post("/api/run", &host, text.replacen(from, to, 1).as_bytes()),
            &[400],
        ));
    }
    let over = r#"{"name": "big", "protocol": "inbox", "workload": {"events": 51}}"#;
    bad.push((post("/api/run", &host, over.as_bytes()), &[400]));
    let steps = r#"{"name": "long", "protocol": "inbox", "limits": {"max_steps": 10000000}}"#;
    bad.push((post("/api/run", &host, steps.as_bytes()), &[400]));
    for depth in ["0", "3", "x", "99999999999999999999"] {
        let path = format!("/api/explore?depth={depth}");
        bad.push((post(&path, &host, &good), &[400]));
    }
    let huge = vec![b'x'; (1 << 20) + 1];
    bad.push((post("/api/run", &host, &huge), &[413]));
    let declared = format!(
        "POST /api/run HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: 999999999999\r\n\r\nabc"
    );
    bad.push((declared.into_bytes(), &[413, 400]));
    for other in [
        "evil.example",
        "127.0.0.1.evil.example:80",
        "localhost",
        "10.0.0.1:1",
    ] {
        bad.push((post("/api/run", other, &good), &[403]));
        let get = format!("GET / HTTP/1.1\r\nHost: {other}\r\nConnection: close\r\n\r\n");
        bad.push((get.into_bytes(), &[403]));
    }
    bad.push((b"GET / HTTP/1.0\r\n\r\n".to_vec(), &[403]));
    let twice = format!("GET / HTTP/1.1\r\nHost: {host}\r\nHost: evil.example\r\n\r\n");
    bad.push((twice.into_bytes(), &[403, 400]));
    for (method, path) in [
        ("DELETE", "/"),
        ("PUT", "/api/run"),
        ("GET", "/api/run"),
        ("GET", "/api/story"),
    ] {
        let r = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        bad.push((r.into_bytes(), &[405]));
    }
    for path in [
        "/etc/passwd",
        "/../Cargo.toml",
        "/api",
        "/%00",
        "/scenarios/",
    ] {
        let r = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        bad.push((r.into_bytes(), &[404, 400]));
    }
    assert!(bad.len() >= 200, "{} bad requests", bad.len());
    for (i, (request, allowed)) in bad.iter().enumerate() {
        let (status, answer) = send(port, request);
        if let Some(status) = status {
            assert!(
                allowed.contains(&status),
                "request {i}: {status} not in {allowed:?}\n{}",
                answer.chars().take(400).collect::<String>()
            );
        }
    }
    // Still up, and right.
    let (status, answer) = send(port, &post("/api/run", &host, &good));
    assert_eq!(status, Some(200), "{answer}");
    assert!(answer.contains(r#""guarantee":"at-most-once""#), "{answer}");
    let get = format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n");
    let (status, page) = send(port, get.as_bytes());
    assert_eq!(status, Some(200));
    assert!(page.contains("connect-src 'self'") && page.contains("id=\"page-data\""));
}

#[test]
fn serve_refuses_a_port_it_cannot_listen_on() {
    let server = start();
    let o = bin(&["serve", "--port", &server.port.to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--port: cannot listen on 127.0.0.1:"),
        "{}",
        stderr(&o)
    );
}

/// The status and the `error` of the answer to `request`.
fn refusal(port: u16, request: &[u8]) -> (Option<u16>, String) {
    let (status, answer) = send(port, request);
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or("");
    let error = serde_json::from_str::<serde_json::Value>(body)
        .map(|v| v["error"].as_str().unwrap_or("").to_string())
        .unwrap_or_default();
    (status, error)
}

/// The request of issue 33: a page on another site POSTs a scenario as `text/plain`, which
/// needs no CORS preflight. It, and every POST from another origin or not declared as JSON,
/// is refused before it asks for a job: the server holds every job here, and each refusal
/// still comes (a job would wait). The page's own POSTs are jobs, answered once released.
#[test]
fn serve_works_only_for_its_own_page() {
    let mut server = start_holding();
    let port = server.port;
    let host = format!("127.0.0.1:{port}");
    let body = br#"{"name": "inbox", "protocol": "inbox"}"#;
    let own = format!("Origin: http://127.0.0.1:{port}");
    let json = "Content-Type: application/json";
    for origin in [
        "Origin: http://evil.example".to_string(),
        "Origin: null".to_string(),
        format!("Origin: https://127.0.0.1:{port}"),
        format!("Origin: http://127.0.0.1:{}", port.wrapping_add(1)),
        format!("Origin: http://127.0.0.1.evil.example:{port}"),
    ] {
        for path in ["/api/run", "/api/explore?depth=1"] {
            for content_type in ["Content-Type: text/plain", json] {
                let request = post_with(path, &host, &[&origin, content_type], body);
                let (status, error) = refusal(port, &request);
                assert_eq!(status, Some(403), "{origin} {content_type}: {error}");
                assert!(error.contains("its own page"), "{error}");
            }
        }
    }
    // Two origins, one of them this server's: refused too.
    let twice = post_with("/api/run", &host, &[&own, "Origin: null", json], body);
    assert_eq!(refusal(port, &twice).0, Some(403));
    for content_type in [
        None,
        Some("Content-Type: text/plain"),
        Some("Content-Type: application/x-www-form-urlencoded"),
        Some("Content-Type: multipart/form-data; boundary=x"),
        Some("Content-Type: application/jsonx"),
    ] {
        let headers: Vec<&str> = std::iter::once(own.as_str()).chain(content_type).collect();
        let (status, error) = refusal(port, &post_with("/api/run", &host, &headers, body));
        assert_eq!(status, Some(415), "{content_type:?}: {error}");
        assert!(error.contains("application/json"), "{error}");
    }
    let localhost = format!("Origin: http://localhost:{port}");
    let pending: Vec<TcpStream> = [
        (
            own.as_str(),
            "Content-Type: application/json; charset=utf-8",
        ),
        (localhost.as_str(), "Content-Type: Application/JSON"),
    ]
    .iter()
    .map(|(origin, content_type)| {
        let stream = open(
            port,
            &post_with("/api/run", &host, &[origin, content_type], body),
        );
        server.job_waits();
        stream
    })
    .collect();
    server.release_jobs();
    for stream in pending {
        let (status, answer) = answer_on(stream);
        assert_eq!(status, Some(200), "{answer}");
    }
}

/// While a job is under way (an exploration of 50 events, held), the page and the refusals
/// are answered; a second job fills the bound, a third request is answered 503 with
/// `Retry-After`; released, both jobs are answered, and the bound is free again.
#[test]
fn serve_answers_while_a_job_is_under_way_and_refuses_past_its_bound() {
    let mut server = start_holding();
    let port = server.port;
    let host = format!("127.0.0.1:{port}");
    let fifty = br#"{"name": "fifty", "protocol": "inbox", "workload": {"events": 50}}"#;
    let small = br#"{"name": "small", "protocol": "ack-first"}"#;
    let home = format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    let exploration = open(port, &post("/api/explore?depth=1", &host, fifty));
    server.job_waits();
    let (status, page) = send(port, home.as_bytes());
    assert_eq!(status, Some(200));
    assert!(page.contains("id=\"page-data\""));
    assert!(
        unanswered(&exploration),
        "the exploration is still under way"
    );
    let run = open(port, &post("/api/run", &host, small));
    server.job_waits();
    for path in ["/api/run", "/api/explore?depth=1"] {
        let (status, answer) = send(port, &post(path, &host, small));
        assert_eq!(status, Some(503), "{answer}");
        assert!(
            answer
                .to_ascii_lowercase()
                .contains("\r\nretry-after: 2\r\n"),
            "{answer}"
        );
        assert!(answer.contains("the most it takes at once"), "{answer}");
    }
    // A refusal is still a refusal, never a 503: it asks for no job.
    let foreign = post_with("/api/run", &host, &["Origin: null"], small);
    assert_eq!(send(port, &foreign).0, Some(403));
    assert_eq!(send(port, home.as_bytes()).0, Some(200));
    assert!(unanswered(&exploration) && unanswered(&run));
    server.release_jobs();
    let (status, answer) = answer_on(exploration);
    assert_eq!(status, Some(200), "{}", &answer[..answer.len().min(400)]);
    assert!(answer.contains(r#""listing""#));
    let (status, answer) = answer_on(run);
    assert_eq!(status, Some(200), "{answer}");
    // Each job gave its place back when it ended, before its answer was sent.
    for _ in 0..3 {
        assert_eq!(send(port, &post("/api/run", &host, small)).0, Some(200));
    }
}

#[test]
fn serve_refuses_in_its_own_language() {
    let server = start_with(&["--lang", "es"], None);
    let host = format!("127.0.0.1:{}", server.port);
    let request = post_with(
        "/api/run",
        &host,
        &["Origin: http://evil.example", "Content-Type: text/plain"],
        b"{}",
    );
    let (status, error) = refusal(server.port, &request);
    assert_eq!(status, Some(403));
    assert!(error.contains("su propia página"), "{error}");
    let request = post_with("/api/run", &host, &[], b"{}");
    let (status, error) = refusal(server.port, &request);
    assert_eq!(status, Some(415));
    assert!(error.contains("no tiene Content-Type"), "{error}");
}

/// The JSON body of an answer.
fn body_of(answer: &str) -> serde_json::Value {
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    serde_json::from_str(body)
        .unwrap_or_else(|e| panic!("{e}: {}", &answer[..answer.len().min(300)]))
}

/// Percent-encodes `text` as a query value (`encodeURIComponent`).
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An exploration's answer lists its runs with their crash points and tells none; the
/// story of each, asked for with those points, is that very run: its trace hash and its
/// replay command are the listing's.
#[test]
fn serve_tells_an_explored_run_when_it_is_asked_for() {
    let server = start();
    let host = format!("127.0.0.1:{}", server.port);
    let scenario = std::fs::read(root().join("scenarios/ack-first-crash-after-ack.json")).unwrap();
    let (status, answer) = send(server.port, &post("/api/explore?depth=2", &host, &scenario));
    assert_eq!(status, Some(200), "{}", &answer[..answer.len().min(300)]);
    let page = body_of(&answer);
    assert_eq!(
        page["runs"].as_array().map(Vec::len),
        Some(0),
        "no run told"
    );
    // It leads with the verdict `explore FILE --depth 2` prints first.
    let cli = bin(&[
        "explore",
        "scenarios/ack-first-crash-after-ack.json",
        "--depth",
        "2",
    ]);
    let first = stdout(&cli).lines().next().unwrap_or("").to_string();
    let v = &page["verdict"];
    let lead = format!(
        "{}  {}",
        v["word"]["en"].as_str().unwrap(),
        v["text"]["en"].as_str().unwrap()
    );
    assert!(first.ends_with(&lead), "{first}\n{lead}");
    assert_eq!(v["status"], "fail");
    let listed = page["listing"]["runs"].as_array().expect("listed runs");
    let crashes = |r: &serde_json::Value| r["crashes"].as_array().expect("crashes").len();
    let picked: Vec<&serde_json::Value> = [0, 1, 2]
        .iter()
        .filter_map(|&n| listed.iter().find(|r| crashes(r) == n))
        .chain(listed.iter().filter(|r| r["tone"] != "once").take(2))
        .collect();
    assert_eq!(
        picked.len(),
        5,
        "runs of 0, 1 and 2 crashes, and failing ones"
    );
    for run in picked {
        let query: Vec<String> = (run["crashes"].as_array().unwrap().iter())
            .map(|c| format!("crash={}", encoded(c.as_str().unwrap())))
            .collect();
        let path = format!("/api/story?{}", query.join("&"));
        let (status, answer) = send(server.port, &post(&path, &host, &scenario));
        assert_eq!(status, Some(200), "{path}: {answer}");
        let told = body_of(&answer);
        let view = &told["runs"][0];
        assert_eq!(view["trace_hash"], run["trace_hash"], "{path}");
        assert_eq!(view["replay"], run["replay"], "{path}");
        assert_eq!(view["crashes"], run["crashes"], "{path}");
        assert_eq!(view["judgement"]["status"], run["status"], "{path}");
    }
    for (query, wrong) in [
        ("crash=after%3Anope%20e0%20d1", "nope"),
        ("crash=%zz", "percent-encoded"),
        ("crash=%C3%28", "percent-encoded"),
    ] {
        let path = format!("/api/story?{query}");
        let (status, answer) = send(server.port, &post(&path, &host, &scenario));
        assert_eq!(status, Some(400), "{path}: {answer}");
        assert!(
            body_of(&answer)["error"].as_str().unwrap().contains(wrong),
            "{answer}"
        );
    }
}
