//! The integration tests: one binary, a module per area. Every test talks
//! to real servers on 127.0.0.1 that it starts itself, and to real SQLite
//! files.

mod gathering;
mod support;

mod boilerplate_http;
mod demo_database;
mod demo_site;
mod docs_tour;
mod fetch_http;
mod fetch_politeness;
mod form_kinds;
mod form_pages;
mod gather_cli;
mod gather_demo;
mod gather_faults;
mod gather_resume;
mod hel_cli;
mod hel_errors;
mod hel_fuzz;
mod hel_lang;
mod hel_seed;
mod hostile;
mod induce_cli;
mod initials;
mod links_http;
mod metadata_fuzz;
mod navigate_paged;
mod network;
mod output_cli;
mod output_export;
mod output_soif;
mod page_tree;
mod plan_http;
mod plan_specs;
mod records;
mod records_page;
mod refine;
mod refresh;
mod reruns;
mod stateful;
mod store_db;
mod summarize_cooperative;
mod summarize_provider;
mod workers;
