//! `gather records PAGE|URL`: the records of one result page with their
//! fields, its pager and the total it states, found from the page alone
//! (see `gather::listing`); `--rules` prints the HEL rules that read the
//! records, ready for a spec.

use std::process::ExitCode;

use url::Url;

use gather::listing::Listing;
use gather::page::Page;
use gather::record::Record;

#[derive(Debug, clap::Args)]
pub struct RecordsArgs {
    /// An http(s) URL, or a saved HTML page (`.gz` is read decompressed).
    #[arg(value_name = "PAGE|URL")]
    pub source: String,
    /// One JSON object: the records, the columns, the pager and the total.
    #[arg(long, conflicts_with_all = ["csv", "rules"])]
    pub json: bool,
    /// The records as CSV, one column per field.
    #[arg(long, conflicts_with = "rules")]
    pub csv: bool,
    /// The HEL rules that read the records, as the `results:` of a spec.
    #[arg(long)]
    pub rules: bool,
}

pub fn run_records(args: &RecordsArgs) -> ExitCode {
    let (bytes, content_type, url) = match super::text::read_source("records", &args.source) {
        Ok(read) => read,
        Err(code) => return code,
    };
    // A saved page is read as the file it is.
    let url = match url {
        Some(url) => url,
        None => match std::path::absolute(&args.source)
            .ok()
            .and_then(|p| Url::from_file_path(p).ok())
        {
            Some(url) => url,
            None => {
                eprintln!("gather records: {}: not a file path", args.source);
                return super::exit(super::BAD_INPUT);
            }
        },
    };
    let page = Page::from_bytes(&bytes, content_type.as_deref());
    let listing = Listing::read(&page, &url);
    if args.rules {
        match listing.rules(&page) {
            Some(rules) => {
                print!("{}", rules.to_yaml());
                return super::exit(super::OK);
            }
            None => {
                eprintln!("gather records: no records found on {}", args.source);
                return super::exit(super::FAILED);
            }
        }
    }
    let records = listing.records(&page, &url);
    let names = field_names(&records);
    if args.json {
        let out = serde_json::json!({
            "url": url.as_str(),
            "fields": names,
            "records": records.iter().map(|r| &r.fields).collect::<Vec<_>>(),
            "pager": listing.pager,
            "total": listing.total,
        });
        outln!("{out}");
    } else if args.csv {
        if let Err(e) = write_csv(&names, &records) {
            eprintln!("gather records: {e}");
            return super::exit(super::FAILED);
        }
    } else {
        match print_records(&listing, &names, &records) {
            Ok(()) => {}
            // The reader went away (`gather records … | head`).
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Err(e) => {
                eprintln!("gather records: cannot write: {e}");
                return super::exit(super::FAILED);
            }
        }
    }
    super::exit(super::OK)
}

/// The fields of the records, in the order they first occur.
fn field_names(records: &[Record]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in records {
        for (name, _) in &r.fields.0 {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

fn value(record: &Record, name: &str) -> String {
    record
        .fields
        .get(name)
        .map(|f| f.values().join(" | "))
        .unwrap_or_default()
}

fn write_csv(names: &[String], records: &[Record]) -> Result<(), String> {
    let mut out = csv::Writer::from_writer(std::io::stdout());
    out.write_record(names).map_err(|e| e.to_string())?;
    for r in records {
        out.write_record(names.iter().map(|n| value(r, n)))
            .map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

fn print_records(listing: &Listing, names: &[String], records: &[Record]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} records; fields: {}",
        records.len(),
        names.join(", ")
    )?;
    for r in records {
        let fields: Vec<String> = names
            .iter()
            .filter_map(|n| {
                let v = value(r, n);
                (!v.is_empty()).then(|| format!("{n}: {v}"))
            })
            .collect();
        writeln!(out, "  {}", fields.join("; "))?;
    }
    match &listing.total {
        Some(t) => writeln!(
            out,
            "total: {} ({}) in {:?}",
            t.count,
            serde_json::to_value(t.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            t.text
        )?,
        None => writeln!(out, "total: not stated")?,
    }
    match (&listing.pager.next, &listing.pager.next_postback) {
        (Some(next), _) => writeln!(out, "next page: {next}")?,
        (None, Some(script)) => writeln!(out, "next page: post-back {script}")?,
        (None, None) => writeln!(out, "next page: none")?,
    }
    let pages = listing
        .pager
        .links
        .iter()
        .filter(|l| matches!(l.role, gather::listing::PagerRole::Page(_)))
        .count();
    if pages > 0 {
        writeln!(out, "page links: {pages}")?;
    }
    out.flush()
}
