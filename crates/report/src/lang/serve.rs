//! What `serve` answers when it refuses a request itself (the `error` of its JSON answer),
//! in the server's language: the request, or a scenario over the bounds of a served job. A
//! scenario the loader refuses, or a check the command line would refuse, is worded by
//! `lang::input`, in the same language.

use super::Lang;

/// Why `serve` refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServeRefusal<'a> {
    /// 403: the request's `Host` is not this server on loopback.
    ForeignHost,
    /// 403: a POST sent by a page of another origin (`null` included) than `own`.
    ForeignOrigin { origin: &'a str, own: &'a str },
    /// 415: a POST whose body is not declared as JSON (`None`: no `Content-Type`).
    NotJson { content_type: Option<&'a str> },
    /// 503: `jobs` runs or explorations are under way, the most the server takes at once.
    Busy { jobs: usize },
    /// 413: a body over `limit` bytes.
    TooLarge { limit: usize },
    /// 405: the path is answered, but not to this method.
    Method { method: &'a str },
    /// 404.
    NotFound { path: &'a str },
    /// 400: the body is not UTF-8.
    NotUtf8,
    /// 400: the body could not be read.
    Unreadable { error: &'a str },
    /// 500: the server failed (a panic, caught).
    Failed,
    /// 400: a job's request over what a served job may ask for.
    Job(JobRefusal<'a>),
}

/// Why `serve` refused a job's request: a scenario or a query over what one request may ask
/// for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobRefusal<'a> {
    /// The query's `depth` is not a number within `1..=max`.
    Depth { value: &'a str, max: usize },
    /// The scenario publishes `events`, over the `max` a request runs (the command
    /// line takes up to `cli_max`).
    Events {
        events: usize,
        max: usize,
        cli_max: u64,
    },
    /// The scenario's `limits.max_steps` is `steps`, over the `max` a request runs.
    Steps { steps: u64, max: u64 },
    /// An exploration the command line would refuse too (`refusal`, worded), with
    /// the `max_schedules` a request explores.
    Exploration {
        refusal: &'a str,
        max_schedules: u64,
    },
    /// An exploration to `depth` that may need `steps` steps, over the `max` a
    /// request spends.
    ExploreSteps {
        depth: usize,
        steps: u128,
        max: u128,
    },
    /// The query's `key` has a `value` that is not percent-encoded UTF-8.
    NotPercentEncoded { key: &'a str, value: &'a str },
}

impl Lang {
    /// The error `serve` answers with when it refuses a request for `why`.
    pub fn serve_refusal(self, why: ServeRefusal<'_>) -> String {
        use ServeRefusal as R;
        match (self, why) {
            (Lang::En, R::ForeignHost) => {
                "this server answers requests addressed to 127.0.0.1 or localhost only".into()
            }
            (Lang::Es, R::ForeignHost) => {
                "este servidor solo responde pedidos dirigidos a 127.0.0.1 o a localhost".into()
            }
            (Lang::En, R::ForeignOrigin { origin, own }) => format!(
                "refused: this POST comes from a page of {origin}, and this server works only \
                 for its own page ({own})"
            ),
            (Lang::Es, R::ForeignOrigin { origin, own }) => format!(
                "rechazado: este POST viene de una página de {origin}, y este servidor solo \
                 trabaja para su propia página ({own})"
            ),
            (Lang::En, R::NotJson { content_type }) => format!(
                "a scenario is sent as application/json; this request's Content-Type {}",
                content_type.map_or("is missing".into(), |c| format!("is {c}"))
            ),
            (Lang::Es, R::NotJson { content_type }) => format!(
                "un escenario se manda como application/json; {}",
                content_type.map_or("este pedido no tiene Content-Type".into(), |c| format!(
                    "el Content-Type de este pedido es {c}"
                ))
            ),
            (Lang::En, R::Busy { jobs }) => format!(
                "the server is already working on {jobs} requests, the most it takes at once: \
                 try again in a few seconds"
            ),
            (Lang::Es, R::Busy { jobs }) => format!(
                "el servidor ya está trabajando en {jobs} pedidos, lo más que toma a la vez: \
                 probá de nuevo en unos segundos"
            ),
            (Lang::En, R::TooLarge { limit }) => {
                format!("a scenario is at most {limit} bytes, as a scenario file is")
            }
            (Lang::Es, R::TooLarge { limit }) => {
                format!("un escenario tiene a lo sumo {limit} bytes, como un archivo de escenario")
            }
            (Lang::En, R::Method { method }) => format!("{method} is not answered here"),
            (Lang::Es, R::Method { method }) => format!("acá no se responde a {method}"),
            (Lang::En, R::NotFound { path }) => format!("nothing at {path}"),
            (Lang::Es, R::NotFound { path }) => format!("no hay nada en {path}"),
            (Lang::En, R::NotUtf8) => "the body is not UTF-8 text".into(),
            (Lang::Es, R::NotUtf8) => "el cuerpo no es texto UTF-8".into(),
            (Lang::En, R::Unreadable { error }) => {
                format!("cannot read the request's body: {error}")
            }
            (Lang::Es, R::Unreadable { error }) => {
                format!("no se puede leer el cuerpo del pedido: {error}")
            }
            (Lang::En, R::Failed) => "the server failed on this request".into(),
            (Lang::Es, R::Failed) => "el servidor falló con este pedido".into(),
            (lang, R::Job(why)) => job_refusal(lang, why),
        }
    }
}

/// A served job's refusals: a scenario or a query over what one request may ask for.
fn job_refusal(lang: Lang, why: JobRefusal<'_>) -> String {
    match lang {
        Lang::En => job_en(why),
        Lang::Es => job_es(why),
    }
}

fn job_en(why: JobRefusal<'_>) -> String {
    use JobRefusal as R;
    match why {
        R::Depth { value, max } => {
            format!("depth: `{value}` is out of range; allowed here: 1 to {max}")
        }
        R::Events {
            events,
            max,
            cli_max,
        } => format!(
            "workload.events: {events} is over the {max} this server runs per request (the \
             command line takes up to {cli_max}: run it there)"
        ),
        R::Steps { steps, max } => format!(
            "limits.max_steps: {steps} is over the {max} this server runs per request (the \
             command line takes more: run it there)"
        ),
        R::Exploration {
            refusal,
            max_schedules,
        } => format!(
            "{refusal} (this server explores at most {max_schedules} schedules per request; \
             the command line, with --max-schedules, more)"
        ),
        R::ExploreSteps { depth, steps, max } => format!(
            "exploring this scenario to depth {depth} may need {steps} steps, over the {max} \
             this server spends per request: lower the depth or the events, or run `explore` \
             on the command line"
        ),
        R::NotPercentEncoded { key, value } => {
            format!("{key}: `{value}` is not percent-encoded UTF-8")
        }
    }
}

fn job_es(why: JobRefusal<'_>) -> String {
    use JobRefusal as R;
    match why {
        R::Depth { value, max } => {
            format!("depth: `{value}` está fuera de rango; acá se admite de 1 a {max}")
        }
        R::Events {
            events,
            max,
            cli_max,
        } => format!(
            "workload.events: {events} pasa los {max} que este servidor corre por pedido (la \
             línea de comandos acepta hasta {cli_max}: corrélo ahí)"
        ),
        R::Steps { steps, max } => format!(
            "limits.max_steps: {steps} pasa los {max} que este servidor corre por pedido (la \
             línea de comandos acepta más: corrélo ahí)"
        ),
        R::Exploration {
            refusal,
            max_schedules,
        } => format!(
            "{refusal} (este servidor explora a lo sumo {max_schedules} planes por pedido; la \
             línea de comandos, con --max-schedules, más)"
        ),
        R::ExploreSteps { depth, steps, max } => format!(
            "explorar este escenario hasta profundidad {depth} puede necesitar {steps} pasos, \
             más que los {max} que este servidor gasta por pedido: bajá la profundidad o los \
             eventos, o corré `explore` en la línea de comandos"
        ),
        R::NotPercentEncoded { key, value } => {
            format!("{key}: `{value}` no es UTF-8 codificado con porcentajes")
        }
    }
}
