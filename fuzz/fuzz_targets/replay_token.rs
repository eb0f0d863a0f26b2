//! `replay TOKEN` on arbitrary text: a token decodes to a validated scenario, or is refused
//! with an error that says why; it never panics.

#![no_main]

use delivery_sim::scenario::token;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = token::decode(text) {
            assert!(!e.to_string().is_empty());
        }
    }
});
