//! The classroom pages: one self-contained HTML file per `matrix --html`, `explore --html`
//! and `run --html`, which works offline from `file://` (no network, no external script,
//! style or font).
//!
//! A page is data plus one script: the data ([`Page`]) holds every text in both languages,
//! rendered here from the same catalogue the terminal reports use ([`story`], the
//! diagram's SVG, the matrix's words), so the page's script only chooses, lays out and
//! highlights; it never words anything itself. The data is embedded as gzip-compressed JSON
//! in base64 (see [`unpacked`]), which the browser inflates itself; the style and the script
//! are compiled in from `page.css` and `page.js`.
//!
//! Pages are bounded: an exploration page shows at most [`MAX_SHOWN_RUNS`] runs step by
//! step (the rest are listed with their replay commands), and a run told in more than
//! [`crate::explain::MAX_TOLD_ENTRIES`] entries is cut where `explain` cuts it.

mod explore;
mod matrix;
mod run;

pub use explore::explore_page;
pub use matrix::matrix_page;
pub use run::{run_page, run_view};

use crate::check::{Judgement, Status};
use crate::lang::Lang;
use serde::Serialize;
use std::collections::BTreeMap;

/// The most runs an exploration page tells step by step. Each takes about 40 kB (two
/// narrations and two diagrams); the list names every run.
pub const MAX_SHOWN_RUNS: usize = 120;

/// The most bytes of data (JSON, before compression) a page holds: past it, runs are listed
/// with their replay commands but no longer told step by step. It keeps every page a few
/// megabytes on disk and its making within a hundred megabytes of memory, whatever the
/// scenario; a 3-event matrix page holds about 4.5 MB.
pub const PAGE_DATA_BYTES: usize = 32 << 20;

/// The version of [`Page`]'s shape, which the page's script checks.
pub const PAGE_VERSION: u32 = 1;

/// Text in both languages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bi<T> {
    pub en: T,
    pub es: T,
}

impl<T> Bi<T> {
    /// `f` in each language.
    pub fn of(f: impl Fn(Lang) -> T) -> Bi<T> {
        Bi {
            en: f(Lang::En),
            es: f(Lang::Es),
        }
    }

    /// The text in `l`.
    pub fn get(&self, l: Lang) -> &T {
        match l {
            Lang::En => &self.en,
            Lang::Es => &self.es,
        }
    }
}

/// A verdict line ([`Judgement`]) as a page shows it, worded as the CLI prints it first:
/// its status (`pass`, `fail` or `unknown`, the line's tone), the status word (`FAIL`,
/// `FALLA`) and the rest of the line (the guarantee with its scope, then the reasons).
#[derive(Clone, Debug, Serialize)]
pub struct VerdictView {
    pub status: &'static str,
    pub word: Bi<&'static str>,
    pub text: Bi<String>,
}

impl VerdictView {
    pub fn of(j: &Judgement) -> VerdictView {
        VerdictView {
            status: status_name(j.status),
            word: Bi::of(|l| l.status(j.status)),
            text: Bi::of(|l| {
                let line = l.judgement(j);
                line[l.status(j.status).len()..].trim_start().to_string()
            }),
        }
    }
}

/// `pass`, `fail` or `unknown`: a status as the pages' data and style name it.
pub(super) fn status_name(s: Status) -> &'static str {
    match s {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::Unknown => "unknown",
    }
}

/// Everything a page shows.
#[derive(Clone, Debug, Serialize)]
pub struct Page {
    pub version: u32,
    /// `matrix`, `explore` or `run`: which view the page opens on.
    pub kind: &'static str,
    /// The language the page opens in (`en` or `es`), from `--lang`.
    pub lang: &'static str,
    pub title: Bi<String>,
    /// The command that made the page.
    pub command: String,
    /// The frame's words, by key.
    pub words: Bi<BTreeMap<&'static str, &'static str>>,
    /// The verdict line the page leads with, the one its command prints first (none on
    /// the playground's own page).
    pub verdict: Option<VerdictView>,
    pub matrix: Option<matrix::MatrixView>,
    pub listing: Option<explore::Listing>,
    /// The runs the page tells step by step; the matrix and the listing point into it.
    pub runs: Vec<run::RunView>,
    /// The playground's examples (`serve`): a scenario file's name and text each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<[String; 2]>,
    /// The bytes of data the runs hold so far, against [`PAGE_DATA_BYTES`].
    #[serde(skip)]
    data_bytes: usize,
}

impl Page {
    fn new(kind: &'static str, lang: Lang, title: Bi<String>, command: String) -> Page {
        Page {
            version: PAGE_VERSION,
            kind,
            lang: lang.code(),
            title,
            command,
            words: Bi::of(|l| l.html_words().into_iter().collect()),
            verdict: None,
            matrix: None,
            listing: None,
            runs: Vec::new(),
            examples: Vec::new(),
            data_bytes: 0,
        }
    }

    /// Adds the run `view` makes to the runs the page tells, unless the page is full
    /// ([`PAGE_DATA_BYTES`]; the first run is always told): its index, if told.
    fn tell(&mut self, view: impl FnOnce() -> run::RunView) -> Option<usize> {
        if self.full() {
            return None;
        }
        let view = view();
        self.data_bytes += serde_json::to_vec(&view).map_or(0, |v| v.len());
        self.runs.push(view);
        Some(self.runs.len() - 1)
    }

    /// [`Page::tell`] for each of `items`, whose views `view` makes: in parallel, a batch of
    /// as many as there are threads at a time, each batch added in order until the page is
    /// full. The page tells the same runs as one [`Page::tell`] after another would (a batch
    /// may make a few views the full page then leaves out).
    fn tell_each<T: Sync>(
        &mut self,
        items: &[T],
        view: impl Fn(&T) -> run::RunView + Sync,
    ) -> Vec<Option<usize>> {
        use rayon::prelude::*;
        let batch = rayon::current_num_threads().max(1);
        let mut told = Vec::with_capacity(items.len());
        for chunk in items.chunks(batch) {
            if self.full() {
                break;
            }
            let views: Vec<run::RunView> = chunk.par_iter().map(&view).collect();
            told.extend(views.into_iter().map(|v| self.tell(|| v)));
        }
        told.resize(items.len(), None);
        told
    }

    /// Whether the page tells no more runs ([`PAGE_DATA_BYTES`]; the first is always told).
    fn full(&self) -> bool {
        !self.runs.is_empty() && self.data_bytes >= PAGE_DATA_BYTES
    }

    /// The page as one HTML document.
    pub fn html(&self) -> String {
        let data = serde_json::to_string(self).expect("a page serialises");
        let title = self.title.get(if self.lang == "es" {
            Lang::Es
        } else {
            Lang::En
        });
        let mut out = String::with_capacity(data.len() + 32_000);
        out.push_str("<!DOCTYPE html>\n<html lang=\"");
        out.push_str(self.lang);
        out.push_str("\">\n<head>\n<meta charset=\"utf-8\">\n");
        out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        // The page may run no code but its own and load nothing: offline by construction.
        // The playground also talks to the server that served it, and to nothing else.
        let connect = if self.kind == "playground" {
            " connect-src 'self';"
        } else {
            ""
        };
        out.push_str(&format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:;{connect}\">\n",
        ));
        out.push_str("<title>");
        out.push_str(&crate::xml::text(title));
        out.push_str("</title>\n<style>\n");
        out.push_str(CSS);
        out.push_str("</style>\n</head>\n<body>\n<div id=\"app\"></div>\n");
        out.push_str(NOSCRIPT);
        out.push_str("<script type=\"application/gzip+base64\" id=\"page-data\">\n");
        out.push_str(&packed(&data));
        out.push_str("\n</script>\n<script>\n");
        out.push_str(JS);
        out.push_str("</script>\n</body>\n</html>\n");
        out
    }
}

/// The page of `serve`: the scenario editor, with `examples` (name, text) one click away.
pub fn playground_page(examples: &[(&str, &str)], lang: Lang) -> Page {
    let mut page = Page::new(
        "playground",
        lang,
        Bi::of(|l| l.html_word("playground_title").to_string()),
        "delivery-sim serve".to_string(),
    );
    page.examples = examples
        .iter()
        .map(|(name, text)| [name.to_string(), text.to_string()])
        .collect();
    page
}

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// What a browser without scripts shows.
const NOSCRIPT: &str = "<noscript><p>This page needs JavaScript (it loads nothing from the \
    network). / Esta página necesita JavaScript (no carga nada de la red).</p></noscript>\n";

/// The page's data as it is embedded: gzip (no name, no time: the same bytes on every
/// run), then base64 in lines of 100 characters, which nothing in HTML can mistake for
/// markup. The script inflates it with the browser's own `DecompressionStream`.
fn packed(json: &str) -> String {
    use base64::Engine as _;
    use std::io::Write as _;
    let mut gz = flate2::GzBuilder::new().write(Vec::new(), flate2::Compression::best());
    gz.write_all(json.as_bytes())
        .and_then(|()| gz.try_finish())
        .expect("compressing into memory cannot fail");
    let bytes = gz.finish().expect("compressing into memory cannot fail");
    let text = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut out = String::with_capacity(text.len() + text.len() / 100 + 1);
    for (i, chunk) in text.as_bytes().chunks(100).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
    }
    out
}

/// The data of a page made by [`Page::html`], as its script reads it: for tests and tools.
pub fn unpacked(html: &str) -> Option<String> {
    use base64::Engine as _;
    use std::io::Read as _;
    let open = "<script type=\"application/gzip+base64\" id=\"page-data\">";
    let start = html.find(open)? + open.len();
    let end = start + html[start..].find("</script>")?;
    let text: String = html[start..end].split_whitespace().collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .ok()?;
    let mut json = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut json)
        .ok()?;
    Some(json)
}

#[cfg(test)]
mod tests;
