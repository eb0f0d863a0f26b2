//! The Mermaid rendering of a [`Diagram`]: a `sequenceDiagram` that GitHub renders in
//! Markdown. Each event's rows sit in a `rect rgb(...)` block of its outcome's colour; the
//! text of every label is cleaned of what Mermaid's grammar gives a meaning (`;` ends a
//! statement, `#` starts an entity code, `<` and `>` are HTML, quotes and `%` confuse the
//! lexer), so that no scenario name or outcome can break the diagram.

use super::{Diagram, Shape, Style, Tone};
use std::fmt::Write as _;

pub(super) fn render(d: &Diagram) -> String {
    let mut out = String::from("sequenceDiagram\n");
    for lane in &d.lanes {
        let _ = writeln!(
            out,
            "    participant {} as {}",
            lane.alias(),
            lane.name(d.lang)
        );
    }
    let span = format!(
        "{},{}",
        d.lanes[0].alias(),
        d.lanes[d.lanes.len() - 1].alias()
    );
    let _ = writeln!(
        out,
        "    Note over {span}: {}",
        clean(&format!("{}: {}", d.name, d.verdict.join(", ")))
    );
    let legend: Vec<&str> = Tone::ALL
        .iter()
        .map(|&t| d.lang.diagram_legend(t))
        .collect();
    let _ = writeln!(
        out,
        "    Note over {span}: {}",
        clean(&d.lang.diagram_legend_note(&legend.join(", ")))
    );
    if let Some(text) = d.elision_text() {
        let _ = writeln!(out, "    Note over {span}: {}", clean(&text));
    }
    // The rect block open now: the event and tone it colours.
    let mut open = None;
    for row in &d.rows {
        let group = row.tone.map(|t| (row.event, t));
        if group != open {
            if open.is_some() {
                out.push_str("    end\n");
            }
            if let Some((_, tone)) = group {
                let (r, g, b) = tone.band_rgb();
                let _ = writeln!(out, "    rect rgb({r}, {g}, {b})");
            }
            open = group;
        }
        let indent = if open.is_some() { "        " } else { "    " };
        let label = clean(&row.label);
        let line = match row.shape {
            Shape::Message { from, to, style } => {
                let arrow = match style {
                    Style::Call => "->>",
                    Style::Refused => "-x",
                    Style::Wait => "-->>",
                };
                format!("{}{arrow}{}: {label}", from.alias(), to.alias())
            }
            Shape::Note { from, to } | Shape::Fold { from, to, .. } => {
                if from == to {
                    format!("Note over {}: {label}", from.alias())
                } else {
                    format!("Note over {},{}: {label}", from.alias(), to.alias())
                }
            }
            Shape::Crash { lane } => format!("Note over {}: {label}", lane.alias()),
        };
        let _ = writeln!(out, "{indent}{line}");
    }
    if open.is_some() {
        out.push_str("    end\n");
    }
    out
}

/// `text` with nothing Mermaid would read as syntax: `;` becomes `,`, `#` the fullwidth
/// `＃`, `&` becomes `and`; `<`, `>`, quotes, backticks, braces, backslashes, `%` and
/// control characters become spaces; runs of spaces become one.
pub(super) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            ';' => out.push(','),
            // `#` starts an entity code in Mermaid; the fullwidth sign reads the same, so a
            // repeated step's crash point still looks like `after:commit#2`.
            '#' => out.push('\u{FF03}'),
            '&' => out.push_str(" and "),
            '<' | '>' | '"' | '\'' | '`' | '{' | '}' | '\\' | '%' => out.push(' '),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
