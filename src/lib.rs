//! The `delivery-sim` command line: [`cli`] (every command, and `serve`'s local web
//! playground) and [`bench`] (the speed figures `bench` prints), over the library
//! `delivery_sim` (crates/library). Nothing here is for a library user: a Rust user's tests
//! depend on `delivery-sim`, which has no command line, server or async HTTP stack.

pub mod bench;
pub mod cli;

// The library's layers, under the paths the command line names them by (`crate::world`).
use delivery_sim::{
    check, crosscheck, explore, fault, model, producer, report, scenario, store, view, world,
};
