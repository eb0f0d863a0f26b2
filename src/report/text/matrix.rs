//! The text of the protocol × crash-point matrix, and the list of built-in protocols.

use super::*;

/// The protocol × crash-point table.
pub fn matrix_text(columns: &[MatrixColumn], events: usize, seed: u64, depth: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "delivery-sim matrix: {} protocols × every crash point, single crashes and up to {} per run; \
         {} events per run, seed {}\n",
        columns.len(),
        depth,
        events,
        seed
    );
    let rows = matrix_rows(columns);
    let first = rows
        .iter()
        .map(|r| r.to_string().len())
        .max()
        .unwrap_or(0)
        .max("guarantee, depth 1".len());
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| {
            c.protocol.name.len().max("DUPLICATED".len()).max(
                c.summaries
                    .iter()
                    .map(|s| s.guarantee.name().len())
                    .max()
                    .unwrap_or(0),
            )
        })
        .collect();
    let line = |out: &mut String, head: &str, cells: Vec<String>| {
        let _ = write!(out, "{head:<first$}");
        for (cell, w) in cells.iter().zip(&widths) {
            let _ = write!(out, "  {cell:<w$}");
        }
        // Padding the last column would leave trailing blanks on every line.
        out.truncate(out.trim_end_matches(' ').len());
        out.push('\n');
    };
    line(
        &mut out,
        "crash point",
        columns.iter().map(|c| c.protocol.name.clone()).collect(),
    );
    line(
        &mut out,
        "",
        widths.iter().map(|w| "-".repeat(*w)).collect(),
    );
    for row in &rows {
        let cells = columns
            .iter()
            .map(|c| match c.cells.iter().find(|cell| cell.at == *row) {
                None => "·".to_string(),
                Some(cell) => match cell.outcome() {
                    "once" => "once".to_string(),
                    "lost" => "LOST".to_string(),
                    "duplicated" => "DUPLICATED".to_string(),
                    _ => "LOST+DUP".to_string(),
                },
            })
            .collect();
        line(&mut out, &row.to_string(), cells);
    }
    line(
        &mut out,
        "",
        widths.iter().map(|w| "-".repeat(*w)).collect(),
    );
    for depth in 1..=depth {
        line(
            &mut out,
            &format!("runs, depth {depth}"),
            columns
                .iter()
                .map(|c| c.summaries[depth - 1].runs.to_string())
                .collect(),
        );
        line(
            &mut out,
            &format!("guarantee, depth {depth}"),
            columns
                .iter()
                .map(|c| c.summaries[depth - 1].guarantee.name().to_string())
                .collect(),
        );
    }
    matrix_legend(&mut out, columns, events, seed);
    out
}

/// The matrix's legend, the replay commands of its failing cells, and whether every
/// protocol showed its documented guarantee.
fn matrix_legend(out: &mut String, columns: &[MatrixColumn], events: usize, seed: u64) {
    let mismatches: Vec<&MatrixColumn> = columns.iter().filter(|c| !c.as_documented()).collect();
    out.push_str(
        "\nonce = every event's effect committed exactly once; LOST = some event has no committed\n\
         effect; DUPLICATED = some event's effect committed twice; · = the protocol has no such\n\
         step. A cell covers every event and delivery attempt crashed once at that boundary;\n\
         the run then recovers. Depth 2 adds a second crash at every point the first crash's\n\
         run reached, its recovery included.\n",
    );
    out.push_str("\nto replay the first failing run of each failing cell:\n");
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
        out.push_str("every built-in protocol showed the guarantee it is documented to have.\n");
    }
    for c in mismatches {
        let shown: Vec<String> = c
            .summaries
            .iter()
            .map(|s| format!("{} at depth {}", s.guarantee, s.depth))
            .collect();
        let _ = writeln!(
            out,
            "MISMATCH: {} is documented as {} but showed {}",
            c.protocol.name,
            c.protocol.known_crash_guarantee().expect("filtered"),
            shown.join(", ")
        );
    }
}

/// The built-in protocols with their steps and description.
pub fn protocols_text() -> String {
    let mut out = String::new();
    for b in built_ins() {
        let steps: Vec<&str> = b.steps.iter().map(|s| s.name()).collect();
        let _ = writeln!(
            out,
            "{:<17} {}\n{:<17} steps: {}\n{:<17} under single crashes: {}\n",
            b.name,
            b.description,
            "",
            steps.join(" → "),
            "",
            b.crash_guarantee
        );
    }
    out.push_str(
        "A scenario may define its own: \"protocol\": {\"name\": \"...\", \"steps\": [...]}, with steps from\n\
         receive, begin, check_inbox, insert_inbox, apply_effect, commit, ack, external_effect.\n",
    );
    out
}
