//! Turning the command line's paths into [`InputFile`]s: sniffing a file's format from its
//! first (decompressed) bytes, falling back to its extension, and walking folders.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::warc::escape;
use super::{InputError, InputFile, InputFormat};

const SNIFF_BYTES: usize = 512;

/// The format an extension names, if any (`.warc.gz` counts as `.warc`).
fn format_by_extension(path: &Path) -> Option<InputFormat> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let ext = name.rsplit_once('.')?.1;
    match ext {
        "warc" => Some(InputFormat::Warc),
        "arc" => Some(InputFormat::Arc),
        "jsonl" => Some(InputFormat::Jsonl),
        "html" | "htm" => Some(InputFormat::Html),
        "txt" => Some(InputFormat::Text),
        "wacz" => Some(InputFormat::Wacz),
        "csv" => Some(InputFormat::Csv),
        "parquet" | "parq" => Some(InputFormat::Parquet),
        _ => None,
    }
}

/// Reads the first bytes of a file, decompressed when it is gzip.
fn first_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut raw = Vec::with_capacity(SNIFF_BYTES);
    File::open(path)?.take(64 * 1024).read_to_end(&mut raw)?;
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(SNIFF_BYTES);
        let dec = flate2::bufread::MultiGzDecoder::new(&raw[..]);
        // A damaged start still yields what decoded before the damage.
        let _ = dec.take(SNIFF_BYTES as u64).read_to_end(&mut out);
        return Ok(out);
    }
    raw.truncate(SNIFF_BYTES);
    Ok(raw)
}

/// Decides a file's format from its content, then its extension.
pub fn sniff(path: &Path) -> Result<InputFormat, InputError> {
    let head = first_bytes(path).map_err(|e| InputError::Io(path.to_path_buf(), e))?;
    let by_ext = format_by_extension(path);
    if head.is_empty() {
        // An empty file: let the reader report it, as a record error at offset 0.
        return Ok(by_ext.unwrap_or(InputFormat::Warc));
    }
    let mut t: &[u8] = &head;
    if t.starts_with(&[0xef, 0xbb, 0xbf]) {
        t = &t[3..];
    }
    let lead = t.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let t = &t[lead..];
    if t.len() >= 5 && t[..5].eq_ignore_ascii_case(b"WARC/") {
        return Ok(InputFormat::Warc);
    }
    if t.starts_with(b"filedesc://") {
        return Ok(InputFormat::Arc);
    }
    // Binary containers, by their magic bytes (before any whitespace skipping matters).
    if head.starts_with(crate::columnar::PARQUET_MAGIC) {
        return Ok(InputFormat::Parquet);
    }
    if head.starts_with(b"PK\x03\x04") {
        return Ok(InputFormat::Wacz);
    }
    // Page and JSONL extensions are trusted over weak content hints: a .txt about HTML
    // is still a text page.
    if let Some(
        f @ (InputFormat::Html | InputFormat::Text | InputFormat::Jsonl | InputFormat::Csv),
    ) = by_ext
    {
        return Ok(f);
    }
    if t.starts_with(b"{") {
        return Ok(InputFormat::Jsonl);
    }
    if t.starts_with(b"<") {
        return Ok(InputFormat::Html);
    }
    match by_ext {
        Some(f) => Ok(f),
        None => Err(InputError::Unrecognized(
            path.to_path_buf(),
            escape(&head, 24),
        )),
    }
}

fn is_crawl_file(path: &Path) -> bool {
    matches!(
        format_by_extension(path),
        Some(
            InputFormat::Warc
                | InputFormat::Arc
                | InputFormat::Jsonl
                | InputFormat::Wacz
                | InputFormat::Csv
                | InputFormat::Parquet
        )
    )
}

/// How deep folders are followed; a symlink loop must not recurse forever.
const MAX_DEPTH: usize = 64;

/// Collects the files of a folder, recursively, in sorted order. Hidden files and folders
/// (`.git`, editor droppings) are skipped.
fn walk(dir: &Path, root: &Path, depth: usize, out: &mut Vec<InputFile>) -> Result<(), InputError> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| InputError::Io(dir.to_path_buf(), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, root, depth + 1, out)?;
            continue;
        }
        match format_by_extension(&path) {
            Some(f @ (InputFormat::Html | InputFormat::Text)) => {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let url = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push(InputFile {
                    path,
                    format: f,
                    page_url: Some(url),
                });
            }
            Some(ext_format) if is_crawl_file(&path) => {
                let format = sniff(&path).unwrap_or(ext_format);
                out.push(InputFile {
                    path,
                    format,
                    page_url: None,
                });
            }
            _ => {}
        }
    }
    Ok(())
}

pub fn expand(paths: &[PathBuf]) -> Result<Vec<InputFile>, InputError> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => InputError::Missing(path.clone()),
            _ => InputError::Io(path.clone(), e),
        })?;
        if meta.is_dir() {
            let before = out.len();
            walk(path, path, 0, &mut out)?;
            if out.len() == before {
                return Err(InputError::EmptyDirectory(path.clone()));
            }
            continue;
        }
        let format = sniff(path)?;
        let page_url = match format {
            InputFormat::Html | InputFormat::Text => {
                path.file_name().map(|n| n.to_string_lossy().into_owned())
            }
            _ => None,
        };
        out.push(InputFile {
            path: path.clone(),
            format,
            page_url,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::File::create(&p).unwrap().write_all(data).unwrap();
        p
    }

    #[test]
    fn sniffing_by_content_and_extension() {
        let d = tempfile::tempdir().unwrap();
        let w = write(d.path(), "x.bin", b"WARC/1.0\r\n");
        assert_eq!(sniff(&w).unwrap(), InputFormat::Warc);
        let a = write(
            d.path(),
            "y.dat",
            b"filedesc://x.arc 0.0.0.0 2000 text/plain 3\n",
        );
        assert_eq!(sniff(&a).unwrap(), InputFormat::Arc);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"{\"url\":\"u\",\"html\":\"<p>\"}\n").unwrap();
        let j = write(d.path(), "z.gz", &gz.finish().unwrap());
        assert_eq!(sniff(&j).unwrap(), InputFormat::Jsonl);
        let h = write(d.path(), "page", b"  <!doctype html>");
        assert_eq!(sniff(&h).unwrap(), InputFormat::Html);
        let t = write(d.path(), "notes.txt", b"<b> is bold");
        assert_eq!(sniff(&t).unwrap(), InputFormat::Text);
        let e = write(d.path(), "empty.warc", b"");
        assert_eq!(sniff(&e).unwrap(), InputFormat::Warc);
        let bad = write(d.path(), "blob", b"\x00\x01binary");
        match sniff(&bad) {
            Err(InputError::Unrecognized(_, first)) => assert!(first.contains("\\x00")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn folders_are_walked_in_order_with_relative_urls() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "b/z.html", b"<p>");
        write(d.path(), "a.htm", b"<p>");
        write(d.path(), "b/c/n.txt", b"t");
        write(d.path(), "skip.png", b"x");
        write(d.path(), "crawl.warc", b"WARC/1.0\r\n");
        let files = expand(&[d.path().to_path_buf()]).unwrap();
        let urls: Vec<_> = files.iter().map(|f| f.page_url.clone()).collect();
        assert_eq!(
            urls,
            vec![
                Some("a.htm".to_string()),
                Some("b/c/n.txt".to_string()),
                Some("b/z.html".to_string()),
                None
            ]
        );
        assert_eq!(files[1].format, InputFormat::Text);
        assert_eq!(files[3].format, InputFormat::Warc);

        let empty = tempfile::tempdir().unwrap();
        write(empty.path(), "x.png", b"x");
        assert!(matches!(
            expand(&[empty.path().to_path_buf()]),
            Err(InputError::EmptyDirectory(_))
        ));
        assert!(matches!(
            expand(&[d.path().join("nope")]),
            Err(InputError::Missing(_))
        ));
        let single = expand(&[d.path().join("b/z.html")]).unwrap();
        assert_eq!(single[0].page_url.as_deref(), Some("z.html"));
    }
}
