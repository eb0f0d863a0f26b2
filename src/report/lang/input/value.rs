//! The words of [`problem::Value`]: a value out of its bounds, or naming what does not
//! exist.

use super::Lang;
use crate::scenario::problem::Value;

pub(super) fn words(p: &Value, lang: Lang) -> String {
    match (p, lang) {
        (Value::OutOfRange { value, min, max }, Lang::En) => {
            format!("{value} is out of range; allowed: {min} to {max}")
        }
        (Value::OutOfRange { value, min, max }, Lang::Es) => {
            format!("{value} está fuera de rango; se admite de {min} a {max}")
        }
        (Value::NoSuchEvent { event, events }, Lang::En) => format!(
            "event {event} does not exist; events are numbered 0 to {} in publication order",
            events.saturating_sub(1)
        ),
        (Value::NoSuchEvent { event, events }, Lang::Es) => format!(
            "el evento {event} no existe; los eventos se numeran de 0 a {} en orden de \
             publicación",
            events.saturating_sub(1)
        ),
        (Value::DeliveryZero, Lang::En) => {
            "delivery attempts start at 1 (the first delivery)".to_string()
        }
        (Value::DeliveryZero, Lang::Es) => {
            "las entregas se cuentan desde 1 (la primera entrega)".to_string()
        }
    }
}
