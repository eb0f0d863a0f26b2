//! Integration tests, compiled into one test binary: the real `delivery-sim` binary on the
//! scenario files, bad input, golden trace hashes, and properties over seeds and fault
//! plans.

#[cfg(feature = "browser")]
mod browser;
mod cli;
mod completions;
mod consumer_faults;
mod corpus;
mod crosscheck;
mod databases;
mod diagram;
mod explain;
mod fields;
mod flags;
mod flow;
mod golden;
mod handler;
mod handler_postgres;
mod hardening;
mod help;
mod html;
mod input_errors;
mod input_fuzz;
mod lang;
mod library;
mod memory;
mod postgres;
mod postgres_databases;
mod postgres_jobs;
mod postgres_upstream;
mod properties;
mod protocol_files;
mod prune;
mod readme;
mod repeated_steps;
mod retention_order;
mod run_file;
mod schema;
mod serve;
mod shrink;
mod sql_fuzz;
mod sql_sandbox;
mod sql_steps;
mod support;
mod tidy;
mod verdict;
