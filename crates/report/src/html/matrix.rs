//! The matrix page: protocols as columns, crash points as rows, each cell labelled with its
//! outcome in words (never colour alone) and tied to one run the page tells step by step:
//! the cell's first failing run, else its first run.

use super::{run_view, status_name, Bi, Page, VerdictView};
use crate::check::Status;
use crate::explore::{matrix_judgement, matrix_rows, MatrixCell, MatrixColumn};
use crate::fault::CrashSpec;
use crate::lang::Lang;
use crate::model::{built_ins, Boundary, BoundaryPoint};
use crate::scenario::Scenario;
use crate::view::TellRun;
use crate::Origin;
use serde::Serialize;

/// The table the matrix page opens on.
#[derive(Clone, Debug, Serialize)]
pub struct MatrixView {
    pub intro: Bi<String>,
    pub legend: Bi<String>,
    pub crash_point: Bi<&'static str>,
    pub protocols: Vec<ProtocolColumn>,
    pub rows: Vec<MatrixRow>,
    /// Per depth, the row labels of the runs, of the guarantee and of the verdict.
    pub depth_labels: Bi<Vec<[String; 3]>>,
}

/// One protocol's column.
#[derive(Clone, Debug, Serialize)]
pub struct ProtocolColumn {
    pub name: String,
    pub steps: String,
    pub description: Bi<String>,
    /// Per depth, 1 to the matrix's: how many runs, and the guarantee they showed.
    pub runs: Vec<u64>,
    pub guarantees: Vec<String>,
    /// Per depth, the verdict over its runs: its status and status word.
    pub statuses: Vec<&'static str>,
    pub status_words: Bi<Vec<&'static str>>,
    /// Whether every depth showed the guarantee the protocol is documented with.
    pub as_documented: bool,
}

/// One crash point: a cell per protocol, `None` where the protocol has no such step.
#[derive(Clone, Debug, Serialize)]
pub struct MatrixRow {
    pub at: String,
    pub cells: Vec<Option<CellView>>,
}

/// One protocol crashed once at one point, over every event and delivery attempt.
#[derive(Clone, Debug, Serialize)]
pub struct CellView {
    /// `once`, `lost`, `duplicated` or `lost+duplicated`.
    pub outcome: &'static str,
    pub label: Bi<&'static str>,
    pub runs: u64,
    pub lost: u64,
    pub duplicated: u64,
    /// The run the cell opens: an index into the page's runs (none when the page was full).
    pub run: Option<usize>,
    /// The command that replays that run.
    pub replay: String,
}

/// The page of `matrix --html`: `columns`, explored with `events` events, `seed` and
/// `depth`, opening in `lang`, leading with the matrix's verdict line. The run each cell
/// opens is made again by `tell`, the caller's.
pub fn matrix_page(
    tell: TellRun,
    columns: &[MatrixColumn],
    events: usize,
    seed: u64,
    depth: usize,
    lang: Lang,
    command: &str,
) -> Page {
    let mut page = Page::new(
        "matrix",
        lang,
        Bi::of(|l| l.html_word("matrix_title").to_string()),
        command.to_string(),
    );
    let boundaries = matrix_rows(columns);
    let mut rows: Vec<MatrixRow> = boundaries
        .iter()
        .map(|at| MatrixRow {
            at: at.to_string(),
            cells: Vec::new(),
        })
        .collect();
    let scenarios: Vec<Scenario> = columns
        .iter()
        .map(|column| {
            let mut scenario = Scenario::new(column.protocol.clone());
            scenario.seed = seed;
            scenario.workload.events = events;
            scenario
        })
        .collect();
    let cells = cell_runs(columns, &boundaries, events, seed);
    let told: Vec<_> = cells.iter().flatten().collect();
    let views = page.tell_each(&told, |(c, _, point, replay)| {
        crashed_run(tell, &scenarios[*c], *point, replay)
    });
    let mut views = views.into_iter();
    for (k, cell) in cells.into_iter().enumerate() {
        let row = &mut rows[k % boundaries.len().max(1)];
        let Some((_, cell, _, replay)) = cell else {
            row.cells.push(None);
            continue;
        };
        row.cells.push(Some(CellView {
            outcome: cell.outcome(),
            label: Bi::of(|l| l.matrix_cell(cell.outcome())),
            runs: cell.runs,
            lost: cell.lost,
            duplicated: cell.duplicated,
            run: views.next().flatten(),
            replay,
        }));
    }
    page.matrix = Some(MatrixView {
        intro: Bi::of(|l| l.matrix_intro(columns.len(), depth, events, seed)),
        legend: Bi::of(|l| l.matrix_legend().replace('\n', " ").trim().to_string()),
        crash_point: Bi::of(|l| l.matrix_crash_point()),
        protocols: columns.iter().map(column_view).collect(),
        rows,
        depth_labels: Bi::of(|l| {
            (1..=depth)
                .map(|d| {
                    [
                        l.matrix_runs_row(d),
                        l.matrix_guarantee_row(d),
                        l.matrix_verdict_row(d),
                    ]
                })
                .collect()
        }),
    });
    page.verdict = Some(VerdictView::of(&matrix_judgement(columns)));
    page
}

/// The run each cell opens, column by column (`None` where the protocol has no such
/// step): its column, the cell, its crash point (the cell's first failing run, else its
/// first run) and the command that replays it.
fn cell_runs<'c>(
    columns: &'c [MatrixColumn],
    boundaries: &[Boundary],
    events: usize,
    seed: u64,
) -> Vec<Option<(usize, &'c MatrixCell, BoundaryPoint, String)>> {
    let mut cells = Vec::new();
    for (c, column) in columns.iter().enumerate() {
        let origin = Origin::BuiltIn {
            protocol: column.protocol.name.clone(),
            events,
        };
        for at in boundaries {
            let cell = column.cells.iter().find(|cell| cell.at == *at);
            let run = cell.and_then(|cell| Some((cell, cell.first_failure.or(cell.first_run)?)));
            cells.push(
                run.map(|(cell, point)| (c, cell, point, origin.replay_command(seed, &[point]))),
            );
        }
    }
    cells
}

/// The run of `scenario` with a single crash at `point`, as the cell's page shows it.
fn crashed_run(
    tell: TellRun,
    scenario: &Scenario,
    point: BoundaryPoint,
    replay: &str,
) -> super::run::RunView {
    let mut s = scenario.clone();
    s.faults.crash = vec![CrashSpec::exactly(point)];
    let (r, told) = tell(&s);
    assert_eq!(
        r.crashes.first().map(|c| c.point),
        Some(point),
        "a matrix run reaches the crash point its exploration reached"
    );
    run_view(&told, &s, &r, replay)
}

fn column_view(c: &MatrixColumn) -> ProtocolColumn {
    let built_in = built_ins().iter().find(|b| b.name == c.protocol.name);
    let statuses: Vec<Status> = (c.summaries.iter())
        .map(|s| s.judgement(None).status)
        .collect();
    ProtocolColumn {
        name: c.protocol.name.clone(),
        steps: c.protocol.arrow_list(),
        description: Bi::of(|l| match built_in {
            Some(b) => l.built_in_description(b),
            None => c.protocol.description.clone(),
        }),
        runs: c.summaries.iter().map(|s| s.runs).collect(),
        guarantees: c
            .summaries
            .iter()
            .map(|s| s.guarantee.name().to_string())
            .collect(),
        statuses: statuses.iter().map(|s| status_name(*s)).collect(),
        status_words: Bi::of(|l| statuses.iter().map(|s| l.status(*s)).collect()),
        as_documented: c.as_documented(),
    }
}
