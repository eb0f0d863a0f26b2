//! What `serve` answers when it refuses a request itself (the `error` of its JSON answer),
//! in the server's language. A scenario the loader refuses is answered in the loader's own
//! words, in English, as on the command line.

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
        }
    }
}
