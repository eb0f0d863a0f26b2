//! `--html FILE`: the page of a run, an exploration or the matrix, written whole or not at
//! all, with a status line on stderr.

use crate::cli::*;
use crate::report::html::Page;

/// Writes `page` to `path` and says so on stderr, in `lang`.
pub(in crate::cli) fn write_html(path: &Path, page: &Page, lang: Lang) -> Result<(), CliError> {
    let html = page.html();
    atomic::write(path, html.as_bytes())
        .map_err(|e| CliError::usage(cannot_write("--html", path, Act::Write, e)))?;
    eprintln!("{}", lang.status_wrote(&[path.display().to_string()]));
    Ok(())
}
