//! The text of the protocol × crash-point matrix, and the list of built-in protocols.

use super::*;

/// The verdict line and the introduction, naming PostgreSQL and its level where the
/// matrix ran on it.
fn matrix_head(
    lang: Lang,
    columns: &[MatrixColumn],
    events: usize,
    seed: u64,
    depth: usize,
) -> String {
    let mut out = verdict_line_in(lang, Paint::OFF, &crate::explore::matrix_judgement(columns));
    let on = columns
        .first()
        .and_then(|c| c.isolation)
        .map(|i| lang.on_postgres(i))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{}{on}\n",
        lang.matrix_intro(columns.len(), depth, events, seed)
    );
    out
}

/// The protocol × crash-point table, in `lang`.
pub fn matrix_text(
    lang: Lang,
    columns: &[MatrixColumn],
    events: usize,
    seed: u64,
    depth: usize,
) -> String {
    let mut out = matrix_head(lang, columns, events, seed, depth);
    let rows = matrix_rows(columns);
    let layout = Layout::of(lang, columns, &rows, depth);
    layout.line(
        &mut out,
        lang.matrix_crash_point(),
        columns.iter().map(|c| c.protocol.name.clone()).collect(),
    );
    layout.rule(&mut out);
    for row in &rows {
        let cells = columns
            .iter()
            .map(|c| match c.cells.iter().find(|cell| cell.at == *row) {
                None => "·".to_string(),
                Some(cell) => lang.matrix_cell(cell.outcome()).to_string(),
            })
            .collect();
        layout.line(&mut out, &row.to_string(), cells);
    }
    layout.rule(&mut out);
    for depth in 1..=depth {
        summary_lines(lang, &layout, &mut out, columns, depth);
    }
    matrix_legend(lang, &mut out, columns, events, seed);
    out
}

/// The table's column widths: the row headers' column, then one per protocol.
struct Layout {
    first: usize,
    widths: Vec<usize>,
}

impl Layout {
    /// Widths that fit every row header (crash points and summary rows up to `depth`),
    /// protocol name and cell.
    fn of(
        lang: Lang,
        columns: &[MatrixColumn],
        rows: &[crate::model::Boundary],
        depth: usize,
    ) -> Layout {
        let first = rows
            .iter()
            .map(|r| r.to_string().chars().count())
            .max()
            .unwrap_or(0)
            .max(lang.matrix_guarantee_row(depth).chars().count())
            .max(lang.matrix_verdict_row(depth).chars().count())
            .max(lang.matrix_runs_row(depth).chars().count());
        let widths: Vec<usize> = columns
            .iter()
            .map(|c| {
                c.protocol.name.len().max(lang.matrix_widest_cell()).max(
                    c.summaries
                        .iter()
                        .map(|s| s.guarantee.name().len())
                        .max()
                        .unwrap_or(0),
                )
            })
            .collect();
        Layout { first, widths }
    }

    /// One line: `head`, then `cells` in their columns.
    fn line(&self, out: &mut String, head: &str, cells: Vec<String>) {
        let first = self.first;
        let _ = write!(out, "{head:<first$}");
        for (cell, w) in cells.iter().zip(&self.widths) {
            let _ = write!(out, "  {cell:<w$}");
        }
        // Padding the last column would leave trailing blanks on every line.
        out.truncate(out.trim_end_matches(' ').len());
        out.push('\n');
    }

    /// The rule under the protocols' names and above the summary rows.
    fn rule(&self, out: &mut String) {
        self.line(
            out,
            "",
            self.widths.iter().map(|w| "-".repeat(*w)).collect(),
        );
    }
}

/// The summary rows of one depth: each protocol's runs, guarantee and verdict.
fn summary_lines(
    lang: Lang,
    layout: &Layout,
    out: &mut String,
    columns: &[MatrixColumn],
    depth: usize,
) {
    layout.line(
        out,
        &lang.matrix_runs_row(depth),
        columns
            .iter()
            .map(|c| c.summaries[depth - 1].runs.to_string())
            .collect(),
    );
    layout.line(
        out,
        &lang.matrix_guarantee_row(depth),
        columns
            .iter()
            .map(|c| c.summaries[depth - 1].guarantee.name().to_string())
            .collect(),
    );
    layout.line(
        out,
        &lang.matrix_verdict_row(depth),
        columns
            .iter()
            .map(|c| {
                lang.status(c.summaries[depth - 1].judgement(None).status)
                    .to_string()
            })
            .collect(),
    );
}

/// The matrix's legend, the replay commands of its failing cells, and whether every
/// protocol showed its documented guarantee.
fn matrix_legend(lang: Lang, out: &mut String, columns: &[MatrixColumn], events: usize, seed: u64) {
    let mismatches: Vec<&MatrixColumn> = columns.iter().filter(|c| !c.as_documented()).collect();
    let _ = write!(out, "\n{}", lang.matrix_legend());
    let _ = writeln!(out, "\n{}", lang.matrix_replay_header());
    for c in columns {
        for cell in &c.cells {
            if let Some(p) = cell.first_failure {
                let _ = writeln!(
                    out,
                    "  {}",
                    matrix_origin(c, events).replay_command(seed, &[p])
                );
            }
        }
    }
    if mismatches.is_empty() {
        let _ = writeln!(out, "{}", lang.matrix_as_documented());
    }
    for c in mismatches {
        let shown: Vec<String> = c
            .summaries
            .iter()
            .map(|s| lang.matrix_shown(s.guarantee.name(), s.depth))
            .collect();
        let documented = c.protocol.known_crash_guarantee().expect("filtered");
        let _ = writeln!(
            out,
            "{}",
            lang.matrix_mismatch(&c.protocol.name, documented.name(), &shown.join(", "))
        );
    }
}
