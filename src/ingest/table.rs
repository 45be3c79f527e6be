//! Page tables: CSV and Parquet files with one page per row (datatrove, Hugging Face
//! datasets, lab pipelines), and the web-page derivatives of the Archives Unleashed Toolkit
//! and ARCH (a Spark CSV directory of part files without a header, backslash escapes and
//! multi-line content, columns `crawl_date, url, mime_type_web_server, mime_type_tika,
//! language, content`; or the same as Parquet with those column names).
//!
//! Columns are found by name: `--url-column`, `--html-column` / `--text-column`,
//! `--date-column` and `--title-column` when given, else the first of the common names in
//! [`ColumnMap`]'s defaults. A row that cannot be read (wrong number of fields, no URL) is a
//! [`RecordError`] naming the row; the others go in. Rows are located by their byte offset
//! (CSV) or their row number (Parquet), so a rerun skips the rows already stored.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::pending::{Pending, StepReader};
use super::{Compression, CrawlRecord, Locator, ReaderOptions};
use crate::columnar::{cell_text, is_text_like, ParquetTable};

/// Column names given on the command line (`None`: look for the common names).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnMap {
    pub url: Option<String>,
    pub text: Option<String>,
    pub html: Option<String>,
    pub date: Option<String>,
    pub title: Option<String>,
}

/// The common names, tried in order (case-insensitively) when no column is named.
const URL_NAMES: &[&str] = &[
    "url",
    "uri",
    "target_uri",
    "warc_target_uri",
    "link",
    "page_url",
];
const HTML_NAMES: &[&str] = &["html", "raw_html", "html_content", "body_html", "page_html"];
const TEXT_NAMES: &[&str] = &[
    "text",
    "content",
    "raw_content",
    "plain_text",
    "body",
    "page_text",
];
const DATE_NAMES: &[&str] = &[
    "date",
    "crawl_date",
    "capture_date",
    "fetch_time",
    "timestamp",
    "warc_date",
    "crawl_time",
    "fetch_date",
];
const TITLE_NAMES: &[&str] = &["title", "page_title"];
const MIME_NAMES: &[&str] = &["mime_type_web_server", "mime_type", "content_type", "mime"];

/// The AUT/ARCH web-pages derivative's columns, in order (its CSV has no header).
pub const AUT_COLUMNS: &[&str] = &[
    "crawl_date",
    "url",
    "mime_type_web_server",
    "mime_type_tika",
    "language",
    "content",
];

/// Which columns of a table hold what, as indices.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    url: usize,
    body: usize,
    body_is_text: bool,
    date: Option<usize>,
    title: Option<usize>,
    mime: Option<usize>,
}

fn find(names: &[String], wanted: &str) -> Option<usize> {
    names
        .iter()
        .position(|n| n.trim().eq_ignore_ascii_case(wanted))
}

fn find_any(names: &[String], candidates: &[&str]) -> Option<usize> {
    candidates.iter().find_map(|c| find(names, c))
}

/// Maps column names to a layout, or says what is missing (naming the columns there are).
fn layout(names: &[String], map: &ColumnMap) -> Result<Layout, String> {
    let named = |flag: &str, name: &Option<String>| -> Result<Option<usize>, String> {
        match name {
            Some(n) => find(names, n).map(Some).ok_or_else(|| {
                format!(
                    "no column {n:?} (--{flag}-column); columns: {}",
                    names.join(", ")
                )
            }),
            None => Ok(None),
        }
    };
    let url = match named("url", &map.url)? {
        Some(i) => i,
        None => find_any(names, URL_NAMES).ok_or_else(|| {
            format!(
                "no url column (tried {}; name it with --url-column); columns: {}",
                URL_NAMES.join(", "),
                names.join(", ")
            )
        })?,
    };
    let (body, body_is_text) = match (named("html", &map.html)?, named("text", &map.text)?) {
        (Some(h), _) => (h, false),
        (None, Some(t)) => (t, true),
        (None, None) => match find_any(names, HTML_NAMES) {
            Some(h) => (h, false),
            None => match find_any(names, TEXT_NAMES) {
                Some(t) => (t, true),
                None => {
                    return Err(format!(
                        "no html or text column (tried {} and {}; name one with --html-column \
                         or --text-column); columns: {}",
                        HTML_NAMES.join(", "),
                        TEXT_NAMES.join(", "),
                        names.join(", ")
                    ))
                }
            },
        },
    };
    let date = match named("date", &map.date)? {
        Some(i) => Some(i),
        None => find_any(names, DATE_NAMES),
    };
    let title = match named("title", &map.title)? {
        Some(i) => Some(i),
        None => find_any(names, TITLE_NAMES),
    };
    Ok(Layout {
        url,
        body,
        body_is_text,
        date,
        title,
        mime: find_any(names, MIME_NAMES),
    })
}

/// The record of one row, or why it is not one.
fn row_record(
    layout: &Layout,
    cell: impl Fn(usize) -> Option<String>,
    locator: Locator,
    record_type: &str,
    max_body: usize,
) -> Result<Option<CrawlRecord>, String> {
    let url = cell(layout.url)
        .map(|u| u.trim().to_string())
        .unwrap_or_default();
    if url.is_empty() {
        return Err("empty url".into());
    }
    let body = cell(layout.body).unwrap_or_default();
    if body.len() > max_body {
        return Err(format!(
            "page too large: {} bytes (limit {max_body})",
            body.len()
        ));
    }
    let mut record = CrawlRecord {
        locator: Some(locator),
        record_type: record_type.into(),
        url: Some(url),
        date: layout.date.and_then(&cell).filter(|d| !d.trim().is_empty()),
        media_type: Some(
            if layout.body_is_text {
                "text/plain"
            } else {
                "text/html"
            }
            .into(),
        ),
        body_is_text: layout.body_is_text,
        given_title: layout.title.and_then(&cell).filter(|t| !t.is_empty()),
        ..CrawlRecord::default()
    };
    // A derivative lists every capture; only pages are documents.
    if let Some(mime) = layout.mime.and_then(&cell) {
        let mime = mime.trim().to_ascii_lowercase();
        let is_page = mime.is_empty()
            || mime.starts_with("text/html")
            || mime.starts_with("application/xhtml")
            || mime.starts_with("text/plain");
        if !is_page {
            return Ok(Some(record));
        }
    }
    if body.trim().is_empty() {
        // A row without a page: counted, not a document.
        return Ok(Some(record));
    }
    record.body = Some(body.into_bytes());
    Ok(Some(record))
}

// ------------------------------------------------------------------- CSV

/// Reads a CSV page table (plain or gzip), row by row.
pub struct CsvReader {
    rows: Option<csv::Reader<Box<dyn Read + Send>>>,
    layout: Option<Layout>,
    /// A first row that was data, not a header (the AUT layout has no header).
    first: Option<csv::ByteRecord>,
    fields: usize,
    row: u64,
    gzip: bool,
    max_body: usize,
    pending: Pending,
    done: bool,
}

/// The first bytes of a file, decompressed when it is gzip.
fn head_bytes(path: &Path, n: usize) -> std::io::Result<(bool, Vec<u8>)> {
    let mut raw = [0u8; 2];
    let got = File::open(path)?.read(&mut raw)?;
    let gzip = got == 2 && raw == [0x1f, 0x8b];
    let mut out = Vec::new();
    let file = File::open(path)?;
    if gzip {
        let dec = flate2::read::MultiGzDecoder::new(BufReader::new(file));
        // A damaged start still yields what decoded before the damage.
        let _ = dec.take(n as u64).read_to_end(&mut out);
    } else {
        file.take(n as u64).read_to_end(&mut out)?;
    }
    Ok((gzip, out))
}

/// Whether a headerless first row looks like the AUT web-pages layout: a 8–14 digit crawl
/// date, then a URL.
fn looks_like_aut(row: &csv::ByteRecord) -> bool {
    let date = String::from_utf8_lossy(row.get(0).unwrap_or_default());
    let url = String::from_utf8_lossy(row.get(1).unwrap_or_default());
    row.len() == AUT_COLUMNS.len()
        && (8..=14).contains(&date.trim().len())
        && date.trim().bytes().all(|b| b.is_ascii_digit())
        && url.contains("://")
}

impl CsvReader {
    pub fn new(path: &Path, opts: &ReaderOptions) -> CsvReader {
        let mut r = CsvReader {
            rows: None,
            layout: None,
            first: None,
            fields: 0,
            row: 0,
            gzip: false,
            max_body: opts.max_body_bytes,
            pending: Pending::default(),
            done: false,
        };
        if let Err(reason) = r.open(path, &opts.columns) {
            r.pending.error(0, reason);
            r.done = true;
        }
        r
    }

    fn open(&mut self, path: &Path, map: &ColumnMap) -> Result<(), String> {
        let (gzip, head) = head_bytes(path, 256 << 10).map_err(|e| format!("unreadable: {e}"))?;
        self.gzip = gzip;
        // Spark writes `\"` inside quoted fields (not RFC 4180's `""`).
        let backslash = memchr::memmem::find(&head, b"\\\"").is_some();
        let file = File::open(path).map_err(|e| format!("unreadable: {e}"))?;
        let source: Box<dyn Read + Send> = if gzip {
            Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(file)))
        } else {
            Box::new(file)
        };
        let mut builder = csv::ReaderBuilder::new();
        builder.has_headers(false).flexible(true);
        if backslash {
            builder.escape(Some(b'\\')).double_quote(false);
        }
        let mut rows = builder.from_reader(source);
        let mut first = csv::ByteRecord::new();
        match rows.read_byte_record(&mut first) {
            Ok(true) => {}
            Ok(false) => return Err("empty CSV file".into()),
            Err(e) => return Err(format!("bad CSV: {e}")),
        }
        let names: Vec<String> = first
            .iter()
            .map(|c| String::from_utf8_lossy(c).trim().to_string())
            .collect();
        let no_names = *map == ColumnMap::default();
        let layout = match layout(&names, map) {
            Ok(l) => l,
            Err(_) if no_names && looks_like_aut(&first) => {
                let aut: Vec<String> = AUT_COLUMNS.iter().map(|s| s.to_string()).collect();
                self.first = Some(first);
                layout(&aut, map)?
            }
            Err(why) => {
                return Err(format!(
                    "{why} (the first row is read as the header; a headerless file must have \
                     the AUT web-pages columns: {})",
                    AUT_COLUMNS.join(", ")
                ))
            }
        };
        self.fields = names.len();
        self.layout = Some(layout);
        self.rows = Some(rows);
        Ok(())
    }

    fn compression(&self) -> Compression {
        if self.gzip {
            Compression::GzipStream
        } else {
            Compression::None
        }
    }

    fn take_row(&mut self, rec: &csv::ByteRecord, offset: u64, length: u64, line: u64) {
        self.row += 1;
        let Some(layout) = &self.layout else {
            return;
        };
        let at = format!("row {} (line {line})", self.row);
        if rec.len() != self.fields {
            self.pending.error(
                offset,
                format!("{at}: {} fields, expected {}", rec.len(), self.fields),
            );
            return;
        }
        let cell = |i: usize| rec.get(i).map(|c| String::from_utf8_lossy(c).into_owned());
        let locator = Locator {
            offset,
            length,
            compression: self.compression(),
        };
        match row_record(layout, cell, locator, "csv", self.max_body) {
            Ok(Some(r)) => self.pending.record(r),
            Ok(None) => {}
            Err(why) => self.pending.error(offset, format!("{at}: {why}")),
        }
    }

    fn step(&mut self) {
        if let Some(first) = self.first.take() {
            let len = first.as_slice().len() as u64;
            self.take_row(&first, 0, len, 1);
            return;
        }
        let Some(rows) = self.rows.as_mut() else {
            self.done = true;
            return;
        };
        let mut rec = csv::ByteRecord::new();
        let start = rows.position().byte();
        let line = rows.position().line();
        match rows.read_byte_record(&mut rec) {
            Ok(true) => {
                let end = rows.position().byte();
                self.take_row(&rec, start, end.saturating_sub(start), line);
            }
            Ok(false) => self.done = true,
            Err(e) => {
                // An I/O or decompression error ends the file; what was read stays.
                self.row += 1;
                self.pending
                    .error(start, format!("row {} (line {line}): {e}", self.row));
                if !matches!(e.kind(), csv::ErrorKind::Utf8 { .. }) {
                    self.done = true;
                }
            }
        }
    }
}

impl StepReader for CsvReader {
    fn pending(&mut self) -> &mut Pending {
        &mut self.pending
    }
    fn is_done(&self) -> bool {
        self.done
    }
    fn step(&mut self) {
        CsvReader::step(self)
    }
}

// ------------------------------------------------------------------- Parquet

/// Rows per Arrow batch: pages are large, so batches are small.
const PARQUET_BATCH_ROWS: usize = 256;

/// Reads a Parquet page table one row group at a time, in batches.
pub struct ParquetReader {
    table: Option<ParquetTable>,
    /// Column indices to read, and the layout in terms of positions in that projection.
    projection: Vec<usize>,
    layout: Option<Layout>,
    group: usize,
    /// Row number of the next row (over the whole file).
    row: u64,
    batches: Option<parquet::arrow::arrow_reader::ParquetRecordBatchReader>,
    /// Row number where the current row group ends.
    group_end: u64,
    max_body: usize,
    pending: Pending,
    done: bool,
}

impl ParquetReader {
    pub fn new(path: &Path, opts: &ReaderOptions) -> ParquetReader {
        let mut r = ParquetReader {
            table: None,
            projection: Vec::new(),
            layout: None,
            group: 0,
            row: 0,
            batches: None,
            group_end: 0,
            max_body: opts.max_body_bytes,
            pending: Pending::default(),
            done: false,
        };
        if let Err(reason) = r.open(path, &opts.columns) {
            r.pending.error(0, reason);
            r.done = true;
        }
        r
    }

    fn open(&mut self, path: &Path, map: &ColumnMap) -> Result<(), String> {
        let table = ParquetTable::open(path).map_err(|e| format!("{e:#}"))?;
        let schema = table.schema().clone();
        // Only columns with a text form can be mapped (a list column named `url` is not one).
        let names: Vec<String> = schema
            .fields()
            .iter()
            .map(|f| {
                if is_text_like(f.data_type()) {
                    f.name().clone()
                } else {
                    format!("{} ({})", f.name(), f.data_type())
                }
            })
            .collect();
        let full = layout(&names, map)?;
        let mut projection: Vec<usize> = [
            Some(full.url),
            Some(full.body),
            full.date,
            full.title,
            full.mime,
        ]
        .into_iter()
        .flatten()
        .collect();
        projection.sort_unstable();
        projection.dedup();
        let pos = |i: usize| projection.iter().position(|&p| p == i).unwrap_or(0);
        let pos_opt = |i: Option<usize>| i.map(pos);
        self.layout = Some(Layout {
            url: pos(full.url),
            body: pos(full.body),
            body_is_text: full.body_is_text,
            date: pos_opt(full.date),
            title: pos_opt(full.title),
            mime: pos_opt(full.mime),
        });
        self.projection = projection;
        self.table = Some(table);
        Ok(())
    }

    fn step(&mut self) {
        let Some(table) = &self.table else {
            self.done = true;
            return;
        };
        if self.batches.is_none() {
            if self.group >= table.row_groups() {
                self.done = true;
                return;
            }
            let group = self.group;
            self.group += 1;
            self.group_end = self.row + table.row_group_rows(group);
            match table.read_group(group, &self.projection, PARQUET_BATCH_ROWS) {
                Ok(b) => self.batches = Some(b),
                Err(e) => {
                    self.pending.error(
                        self.row,
                        format!(
                            "row group {group} (rows {}..{}): {e:#}",
                            self.row, self.group_end
                        ),
                    );
                    self.row = self.group_end;
                }
            }
            return;
        }
        let next = self.batches.as_mut().and_then(Iterator::next);
        match next {
            None => {
                self.batches = None;
                self.row = self.group_end;
            }
            Some(Err(e)) => {
                // The rest of this row group is lost; the next one may be fine.
                self.pending.error(
                    self.row,
                    format!(
                        "row group {} (rows {}..{}): {e}",
                        self.group - 1,
                        self.row,
                        self.group_end
                    ),
                );
                self.batches = None;
                self.row = self.group_end;
            }
            Some(Ok(batch)) => {
                let Some(layout) = &self.layout else {
                    return;
                };
                for i in 0..batch.num_rows() {
                    let row = self.row;
                    self.row += 1;
                    let cell = |c: usize| {
                        batch
                            .columns()
                            .get(c)
                            .and_then(|a| cell_text(a.as_ref(), i))
                            .map(|s| s.into_owned())
                    };
                    // Rows are located by number: one "byte" per row keeps offsets unique.
                    let locator = Locator {
                        offset: row,
                        length: 1,
                        compression: Compression::None,
                    };
                    match row_record(layout, cell, locator, "parquet", self.max_body) {
                        Ok(Some(r)) => self.pending.record(r),
                        Ok(None) => {}
                        Err(why) => self.pending.error(row, format!("row {row}: {why}")),
                    }
                }
            }
        }
    }
}

impl StepReader for ParquetReader {
    fn pending(&mut self) -> &mut Pending {
        &mut self.pending
    }
    fn is_done(&self) -> bool {
        self.done
    }
    fn step(&mut self) {
        ParquetReader::step(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::pending::Stepped;
    use crate::ingest::ReadItem;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn common_names_and_named_columns() {
        let l = layout(
            &names(&["URL", "Title", "html", "crawl_date"]),
            &ColumnMap::default(),
        )
        .unwrap();
        assert_eq!(
            (l.url, l.body, l.body_is_text, l.date, l.title),
            (0, 2, false, Some(3), Some(1))
        );
        let l = layout(&names(&["link", "content"]), &ColumnMap::default()).unwrap();
        assert_eq!((l.url, l.body, l.body_is_text), (0, 1, true));
        let map = ColumnMap {
            url: Some("where".into()),
            text: Some("words".into()),
            ..ColumnMap::default()
        };
        let l = layout(&names(&["words", "where", "url"]), &map).unwrap();
        assert_eq!((l.url, l.body, l.body_is_text), (1, 0, true));
        let err = layout(&names(&["a", "b"]), &ColumnMap::default()).unwrap_err();
        assert!(
            err.contains("no url column") && err.contains("columns: a, b"),
            "{err}"
        );
        let map = ColumnMap {
            date: Some("when".into()),
            ..ColumnMap::default()
        };
        let err = layout(&names(&["url", "text"]), &map).unwrap_err();
        assert!(err.contains("--date-column"), "{err}");
    }

    fn read_csv(data: &[u8]) -> Vec<ReadItem> {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.csv");
        std::fs::write(&p, data).unwrap();
        Stepped(CsvReader::new(&p, &ReaderOptions::default())).collect()
    }

    #[test]
    fn aut_csv_without_header_with_backslash_escapes_and_newlines() {
        let data = b"20080430204826,http://a.example/,text/html,text/html,en,\"first line\nsecond \\\"quoted\\\", line\"\n\
20080430204827,http://b.example/x.png,image/png,image/png,,\n\
20080430204828,http://c.example/,text/html,text/html,en,short\n";
        let items = read_csv(data);
        let recs: Vec<&CrawlRecord> = items
            .iter()
            .map(|i| match i {
                ReadItem::Record(r) => r.as_ref(),
                ReadItem::Error(e) => panic!("{e:?}"),
            })
            .collect();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].url.as_deref(), Some("http://a.example/"));
        assert_eq!(recs[0].date.as_deref(), Some("20080430204826"));
        assert_eq!(
            recs[0].body.as_deref(),
            Some(&b"first line\nsecond \"quoted\", line"[..])
        );
        assert!(recs[0].body_is_text);
        assert!(recs[1].body.is_none(), "an image row is not a page");
        let third = memchr::memmem::find(data, b"20080430204828").unwrap();
        assert_eq!(recs[2].locator.unwrap().offset as usize, third);
    }

    #[test]
    fn a_broken_row_is_an_error_and_the_rest_goes_in() {
        let items = read_csv(
            b"url,title,text\nhttp://a/,A,alpha\nhttp://b/,B\n,C,gamma\nhttp://d/,D,delta\n",
        );
        let errors: Vec<String> = items
            .iter()
            .filter_map(|i| match i {
                ReadItem::Error(e) => Some(e.reason.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            errors,
            [
                "row 2 (line 3): 2 fields, expected 3",
                "row 3 (line 4): empty url"
            ]
        );
        let urls: Vec<String> = items
            .iter()
            .filter_map(|i| match i {
                ReadItem::Record(r) => r.url.clone(),
                _ => None,
            })
            .collect();
        assert_eq!(urls, ["http://a/", "http://d/"]);
        let items = read_csv(b"a,b\n1,2\n");
        match &items[..] {
            [ReadItem::Error(e)] => assert!(e.reason.contains("no url column"), "{e:?}"),
            other => panic!("{other:?}"),
        }
    }
}
