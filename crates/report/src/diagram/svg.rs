//! The SVG rendering of a [`Diagram`]: a standalone document (no stylesheet, script or font
//! beyond the generic `sans-serif` and `monospace` families) with one vertical lane per
//! actor and time flowing down.
//!
//! Rows are placed by virtual tick, compressed: rows of one tick are stacked one under the
//! other, and a later tick adds a small gap that grows with the idle ticks before it up to a
//! cap, so that a 5-tick redelivery delay shows without wasting the page. Every number is an
//! integer number of pixels, so the output is the same on every platform. Elements that the
//! tests look for carry `class` and `data-*` attributes (the lane, the event, its outcome).

use super::{Diagram, Lane, Row, Shape, Style, Tone, PLAIN_INK};
use crate::lang::Lang;
use crate::xml::attr as esc;
use std::fmt::Write as _;

const MARGIN: i64 = 16;
/// The column left of the lanes, for tick labels.
const AXIS: i64 = 56;
const LANE_W: i64 = 150;
const ROW_H: i64 = 24;
/// The gap before the first row of a later tick, and what each idle tick adds, up to
/// [`MAX_IDLE_STEPS`] of them.
const TICK_GAP: i64 = 4;
const IDLE_STEP: i64 = 3;
const MAX_IDLE_STEPS: i64 = 4;
/// Average advance of a character at 11 px in a sans-serif font, generously rounded up.
const CHAR_W: i64 = 6;
const HEAD_H: i64 = 26;
const CRASH_INK: &str = "#d50000";

pub(super) fn render(d: &Diagram) -> String {
    let lanes_left = MARGIN + AXIS;
    let lanes_w = LANE_W * d.lanes.len() as i64;
    let center = |lane: Lane| -> i64 {
        let i = d
            .lanes
            .iter()
            .position(|&l| l == lane)
            .expect("a lane of the diagram") as i64;
        lanes_left + LANE_W * i + LANE_W / 2
    };

    let verdict = d.verdict.join("; ");
    let elision = d.elision_text();
    let header_w = header_width(d, &verdict, elision.as_deref());
    let width = (lanes_left + lanes_w + MARGIN).max(MARGIN * 2 + header_w);

    let (head, lanes_top) = head(d, &verdict, elision.as_deref());
    let (places, y) = place_rows(d, lanes_top);
    let bottom = y + 8;
    let height = bottom + MARGIN;

    let (bands, body) = rows_svg(d, &places, &center, lanes_left, lanes_w);
    let lifelines = lifelines(d, lanes_top, bottom, &center);

    let mut out = prologue(d, &verdict, width, height);
    out.push_str(&head);
    out.push_str(&bands);
    out.push_str(&lifelines);
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

/// The widest line above the lanes: the name, the verdict, the legend or the elision note.
fn header_width(d: &Diagram, verdict: &str, elision: Option<&str>) -> i64 {
    let mut header_w = [
        d.name.chars().count() as i64 * 10,
        verdict.chars().count() as i64 * 7,
        LEGEND_W,
    ]
    .into_iter()
    .max()
    .unwrap_or(0);
    if let Some(e) = elision {
        header_w = header_w.max(e.chars().count() as i64 * CHAR_W);
    }
    header_w
}

/// The rows at their `places`: the events' coloured bands, drawn first so that they lie
/// under the lifelines, and the rows themselves with their tick labels.
fn rows_svg(
    d: &Diagram,
    places: &[(i64, bool)],
    center: &impl Fn(Lane) -> i64,
    lanes_left: i64,
    lanes_w: i64,
) -> (String, String) {
    let mut bands = String::new();
    let mut body = String::new();
    for (i, (row, &(top, new_tick))) in d.rows.iter().zip(places).enumerate() {
        let mid = top + ROW_H / 2;
        if let Some(tone) = row.tone {
            // One event's rows form one band: it bridges the gap to the next row of the
            // same event, as a Mermaid rect block would.
            let next = d.rows.get(i + 1).zip(places.get(i + 1));
            let band_h = match next {
                Some((n, &(n_top, _))) if n.tone == row.tone && n.event == row.event => n_top - top,
                _ => ROW_H,
            };
            let (r, g, b) = tone.band_rgb();
            let _ = writeln!(
                bands,
                r#"<rect class="band" data-outcome="{}" x="{lanes_left}" y="{top}" width="{lanes_w}" height="{band_h}" fill="rgb({r},{g},{b})"/>"#,
                tone.name()
            );
        }
        if new_tick {
            let _ = writeln!(
                body,
                r##"<text x="{MARGIN}" y="{}" font-size="10" font-family="monospace" fill="#78909c">t={}</text>"##,
                mid + 4,
                row.tick
            );
        }
        draw_row(&mut body, row, mid, center, lanes_left, lanes_w);
    }
    (bands, body)
}

/// The document up to its content: the XML declaration, the `svg` element, its title, the
/// arrowhead markers and the white background.
fn prologue(d: &Diagram, verdict: &str, width: i64, height: i64) -> String {
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = writeln!(
        out,
        "<title>{}</title>",
        esc(&format!("{}: {verdict}", d.name))
    );
    out.push_str("<defs>\n");
    for (id, ink) in markers() {
        let _ = writeln!(
            out,
            r#"<marker id="head-{id}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{ink}"/></marker>"#
        );
    }
    out.push_str("</defs>\n");
    let _ = writeln!(
        out,
        r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#
    );
    out
}

/// The title, the verdict, the legend and the elision note, and where the lanes start
/// under them.
fn head(d: &Diagram, verdict: &str, elision: Option<&str>) -> (String, i64) {
    let mut head = String::new();
    let _ = writeln!(
        head,
        r#"<text x="{MARGIN}" y="26" font-size="16" font-weight="bold" fill="{PLAIN_INK}">{}</text>"#,
        esc(&d.name)
    );
    let _ = writeln!(
        head,
        r#"<text x="{MARGIN}" y="46" font-size="12" fill="{PLAIN_INK}">{}</text>"#,
        esc(verdict)
    );
    legend(&mut head, 66, d.lang);
    let mut lanes_top = 88;
    if let Some(e) = elision {
        let _ = writeln!(
            head,
            r##"<text x="{MARGIN}" y="{}" font-size="11" font-style="italic" fill="#546e7a">{}</text>"##,
            lanes_top + 2,
            esc(e)
        );
        lanes_top += 18;
    }
    (head, lanes_top)
}

/// Where each row goes: (top of the row, whether it starts a new tick), and the bottom of
/// the last; rows start under the lane heads at `lanes_top`.
fn place_rows(d: &Diagram, lanes_top: i64) -> (Vec<(i64, bool)>, i64) {
    let mut places: Vec<(i64, bool)> = Vec::with_capacity(d.rows.len());
    let mut y = lanes_top + HEAD_H + 12;
    let mut previous: Option<u64> = None;
    for row in &d.rows {
        let new_tick = previous != Some(row.tick);
        if let Some(p) = previous.filter(|_| new_tick) {
            let idle = row.tick.saturating_sub(p).saturating_sub(1);
            y += TICK_GAP + IDLE_STEP * (idle.min(MAX_IDLE_STEPS as u64) as i64);
        }
        places.push((y, new_tick));
        y += ROW_H;
        previous = Some(row.tick);
    }
    (places, y)
}

/// Each lane's head and dashed lifeline, from `lanes_top` to `bottom`.
fn lifelines(d: &Diagram, lanes_top: i64, bottom: i64, center: &dyn Fn(Lane) -> i64) -> String {
    let mut lifelines = String::new();
    for &lane in &d.lanes {
        let x = center(lane);
        let _ = writeln!(
            lifelines,
            r##"<g class="lane" data-lane="{key}"><line x1="{x}" y1="{}" x2="{x}" y2="{bottom}" stroke="#b0bec5" stroke-dasharray="4 4"/><rect x="{}" y="{lanes_top}" width="{}" height="{HEAD_H}" rx="4" fill="#eceff1" stroke="#90a4ae"/><text x="{x}" y="{}" font-size="12" font-weight="bold" text-anchor="middle" fill="{PLAIN_INK}">{}</text></g>"##,
            lanes_top + HEAD_H,
            x - LANE_W / 2 + 10,
            LANE_W - 20,
            lanes_top + 17,
            esc(&lane.name(d.lang)),
            key = lane.key(),
        );
    }
    lifelines
}

/// The arrowhead markers: one per outcome colour and one for rows of no event.
fn markers() -> Vec<(&'static str, &'static str)> {
    let mut m: Vec<(&str, &str)> = Tone::ALL.iter().map(|t| (t.name(), t.ink())).collect();
    m.push(("plain", PLAIN_INK));
    m
}

/// The legend's width, for sizing the document.
const LEGEND_W: i64 = 760;

fn legend(out: &mut String, y: i64, lang: Lang) {
    let mut x = MARGIN;
    for tone in Tone::ALL {
        let (r, g, b) = tone.band_rgb();
        let text = lang.diagram_legend(tone);
        let _ = writeln!(
            out,
            r#"<g class="legend" data-outcome="{}"><rect x="{x}" y="{}" width="12" height="12" fill="rgb({r},{g},{b})" stroke="{}"/><text x="{}" y="{y}" font-size="11" fill="{}">{}</text></g>"#,
            tone.name(),
            y - 10,
            tone.ink(),
            x + 16,
            tone.ink(),
            esc(text)
        );
        x += 16 + text.chars().count() as i64 * CHAR_W + 14;
    }
    cross(out, x + 5, y - 4, 5, CRASH_INK, 2);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{y}" font-size="11" fill="{CRASH_INK}">{}</text>"#,
        x + 14,
        lang.diagram_crash()
    );
}

/// An ✕ of half-size `r` centred on (`x`, `y`).
fn cross(out: &mut String, x: i64, y: i64, r: i64, ink: &str, width: i64) {
    let _ = writeln!(
        out,
        r#"<path d="M{},{} L{},{} M{},{} L{},{}" stroke="{ink}" stroke-width="{width}" stroke-linecap="round"/>"#,
        x - r,
        y - r,
        x + r,
        y + r,
        x - r,
        y + r,
        x + r,
        y - r
    );
}

fn draw_row(
    out: &mut String,
    row: &Row,
    mid: i64,
    center: &impl Fn(Lane) -> i64,
    lanes_left: i64,
    lanes_w: i64,
) {
    let (ink, _) = row_ink(row);
    match row.shape {
        Shape::Message { from, to, style } if from != to => {
            message_row(out, row, mid, (center(from), center(to)), style);
        }
        Shape::Message { from, to, .. } | Shape::Note { from, to } => {
            box_row(
                out,
                "note",
                row,
                mid,
                (center(from), center(to)),
                ink,
                (lanes_left, lanes_w),
            );
        }
        Shape::Fold { from, to, .. } => {
            box_row(
                out,
                "fold",
                row,
                mid,
                (center(from), center(to)),
                ink,
                (lanes_left, lanes_w),
            );
        }
        Shape::Crash { lane } => {
            crash_row(out, row, mid, lane, center(lane), (lanes_left, lanes_w))
        }
    }
}

/// A row's ink and the outcome it stands for: its event's tone, or plain.
fn row_ink(row: &Row) -> (&'static str, &'static str) {
    match row.tone {
        Some(t) => (t.ink(), t.name()),
        None => (PLAIN_INK, "none"),
    }
}

/// A message from one lane to another at `xs`: an arrow, dashed while it waits, ending in
/// a cross when it is refused.
fn message_row(out: &mut String, row: &Row, mid: i64, xs: (i64, i64), style: Style) {
    let (ink, outcome) = row_ink(row);
    let event = row_attrs(row);
    let (x1, x2) = xs;
    let y = mid + 4;
    let _ = write!(
        out,
        r#"<g class="message" data-outcome="{outcome}"{event}>"#
    );
    let dash = if style == Style::Wait {
        r#" stroke-dasharray="5 3""#
    } else {
        ""
    };
    let head = if style == Style::Refused {
        String::new()
    } else {
        let id = row.tone.map_or("plain", Tone::name);
        format!(r#" marker-end="url(#head-{id})""#)
    };
    let _ = write!(
        out,
        r#"<line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}" stroke="{ink}" stroke-width="1.5"{dash}{head}/>"#
    );
    if style == Style::Refused {
        // The message ends short of the lane, in a cross: it did not get through.
        cross(out, x2 - 6 * (x2 - x1).signum(), y, 4, ink, 2);
    }
    let max = ((x2 - x1).abs() + LANE_W / 2) / CHAR_W;
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" font-size="11" text-anchor="middle" fill="{ink}">{}</text></g>"#,
        (x1 + x2) / 2,
        mid - 1,
        esc(&fit(&row.label, max))
    );
}

/// A crash: a cross on the crashed lane at `x`, labelled within the lanes (`area` is their
/// left edge and width).
fn crash_row(out: &mut String, row: &Row, mid: i64, lane: Lane, x: i64, area: (i64, i64)) {
    let (_, outcome) = row_ink(row);
    let event = row_attrs(row);
    let (lanes_left, lanes_w) = area;
    let _ = write!(
        out,
        r#"<g class="crash" data-lane="{}" data-outcome="{outcome}"{event}>"#,
        lane.key()
    );
    cross(out, x, mid, 7, CRASH_INK, 3);
    let max = (lanes_left + lanes_w - x - 12) / CHAR_W;
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" font-size="11" font-weight="bold" fill="{CRASH_INK}">{}</text></g>"#,
        x + 12,
        mid + 4,
        esc(&fit(&row.label, max.max(12)))
    );
}

/// The attributes that tie a row to its event and to the trace entries it stands for
/// (`data-first` to `data-last`), which the HTML pages use to highlight the row of a step.
fn row_attrs(row: &Row) -> String {
    let mut attrs = row
        .event
        .map_or(String::new(), |e| format!(r#" data-event="{e}""#));
    if let Some((first, last)) = row.entries {
        let _ = write!(attrs, r#" data-first="{first}" data-last="{last}""#);
    }
    attrs
}

/// A note or a fold: a box over the lanes from `xs.0` to `xs.1`, widened to its text within
/// the lanes (`area` is their left edge and width).
fn box_row(
    out: &mut String,
    class: &str,
    row: &Row,
    mid: i64,
    xs: (i64, i64),
    ink: &str,
    area: (i64, i64),
) {
    let (lo, hi) = (xs.0.min(xs.1), xs.0.max(xs.1));
    let text_w = row.label.chars().count() as i64 * CHAR_W + 16;
    let w = (hi - lo + LANE_W - 16).max(text_w).min(area.1 - 8);
    let centre = (lo + hi) / 2;
    let x = (centre - w / 2).clamp(area.0 + 4, area.0 + area.1 - 4 - w);
    let (fill, stroke, extra) = if class == "fold" {
        (
            "#ffffff",
            "#2e7d32",
            r#" stroke-dasharray="3 2" fill-opacity="0.7""#,
        )
    } else {
        ("#fffde7", "#c9b458", "")
    };
    let event = row_attrs(row);
    let _ = writeln!(
        out,
        r#"<g class="{class}"{event}><rect x="{x}" y="{}" width="{w}" height="{}" rx="3" fill="{fill}" stroke="{stroke}"{extra}/><text x="{}" y="{}" font-size="11"{} text-anchor="middle" fill="{ink}">{}</text></g>"#,
        mid - ROW_H / 2 + 3,
        ROW_H - 6,
        x + w / 2,
        mid + 4,
        if class == "fold" {
            r#" font-style="italic""#
        } else {
            ""
        },
        esc(&fit(&row.label, (w - 8) / CHAR_W))
    );
}

/// `text` cut to `max` characters, ending in `...` when cut.
fn fit(text: &str, max: i64) -> String {
    let max = max.max(4) as usize;
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max - 3).collect();
    s.push_str("...");
    s
}
