//! Bytes of a page → UTF-8 (HTTP charset, then `<meta charset>`, then detection), the
//! visible text with all markup, scripts and styles removed, the main-content text of a
//! readability-style extractor, the title, and whether the page is a client-side redirect
//! stub. Hostile pages are capped in size and work,
//! and a panic in a parser becomes an error for that page, never a crash.
//!
//! The content text the detectors read by default (site-template blocks removed across a
//! site's pages, a per-page extraction where a site has too few) is made from the stored
//! visible texts after a site's pages are in: see [`content`]. Which pages are on one site
//! (releases of one manual laid out as sites of their own are one): [`sites`].
//!
//! The texts are stored as they are produced here; every span a detector reports is a byte
//! range in these stored texts, so the review UI can highlight words without re-parsing.

pub mod charset;
pub mod content;
pub mod editions;
pub mod lines;
pub mod main_content;
pub mod redirect_stub;
pub mod scan;
pub mod sites;
pub mod structure;
pub mod visible;

pub use main_content::MainLimits;
pub use visible::VisibleLimits;

/// Pages larger than this (decoded bytes) are refused by default.
pub const DEFAULT_MAX_PAGE_BYTES: usize = 8 << 20;

/// Limits and switches of one extraction.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Run the readability-style main-content extractor (the expensive part: about five
    /// times the rest of extraction). Off by default: every default detector reads the
    /// content text, which is made from the visible text (`ingest --main` turns it on).
    pub main_content: bool,
    /// Refuse pages larger than this many bytes.
    pub max_bytes: usize,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            main_content: false,
            max_bytes: DEFAULT_MAX_PAGE_BYTES,
        }
    }
}

/// The texts of one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    pub title: String,
    /// All visible text; block elements end lines, runs of white space become one space.
    pub visible_text: String,
    /// The readability main content as plain text, when the extractor found one.
    pub main_text: Option<String>,
    /// Name of the character set the bytes were decoded from (e.g. `UTF-8`, `windows-1252`).
    pub encoding: &'static str,
    /// The structure signals of `visible_text`'s blocks ([`structure`]; empty when none).
    pub blocks: Vec<structure::BlockSignal>,
    /// The page is a client-side redirect stub ([`redirect_stub`]): triaged as noise.
    pub redirect_stub: bool,
}

/// Why a page could not be extracted.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum ExtractError {
    #[error("page too large: {0} bytes (limit {1})")]
    TooLarge(usize, usize),
    #[error("extractor failed: {0}")]
    Failed(String),
}

/// Extracts the texts of a page. `is_text` marks a plain-text payload (no HTML parsing).
///
/// Budgets for hostile pages: bodies over `opts.max_bytes` are refused (`TooLarge`); the
/// visible text stops after [`VisibleLimits::max_tags`] tags or
/// [`VisibleLimits::max_text_bytes`] bytes of text and keeps what it has (a truncated text,
/// not an error: the page stays reviewable); the main-content extractor is not run on pages
/// over [`MainLimits`] (size, element count, nesting depth and their product: the work a
/// DOM walk does) and `main_text` is then `None`.
/// A panic in either parser becomes `ExtractError::Failed` for this page.
pub fn extract(
    body: &[u8],
    header_charset: Option<&str>,
    is_text: bool,
    opts: &ExtractOptions,
) -> Result<Extracted, ExtractError> {
    if body.len() > opts.max_bytes {
        return Err(ExtractError::TooLarge(body.len(), opts.max_bytes));
    }
    // Most bodies are valid UTF-8 (or ASCII): decoding borrows them instead of copying.
    let (html, encoding, _source) = charset::decode_borrowed(body, header_charset, !is_text);
    let encoding = encoding.name();
    if is_text {
        return Ok(extract_plain_text(&html, encoding));
    }
    let visible = isolate("html tokenizer", || {
        visible::visible_text(&html, VisibleLimits::default())
    })?;
    let limits = MainLimits::default();
    let main_text = if opts.main_content
        && limits.admits(
            html.len(),
            visible.elements,
            visible.max_depth,
            scan::max_attributes_per_tag(&html),
        ) {
        main_content::main_text(&html, limits).map_err(|failure| {
            ExtractError::Failed(format!("main-content extractor: {failure:?}"))
        })?
    } else {
        None
    };
    let title = if visible.title.is_empty() {
        visible.first_h1
    } else {
        visible.title
    };
    let redirect_stub = redirect_stub::is_redirect_stub(&html, &visible.text);
    Ok(Extracted {
        title,
        redirect_stub,
        visible_text: visible.text,
        main_text,
        encoding,
        blocks: visible.blocks,
    })
}

/// Runs `work`, turning a panic into `ExtractError::Failed` naming `what` panicked.
fn isolate<T>(what: &str, work: impl FnOnce() -> T) -> Result<T, ExtractError> {
    // Unwind safety: `work` only reads borrowed input and returns owned output; nothing it
    // touches is observed after a panic.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(|panic| {
        ExtractError::Failed(format!(
            "{what} panicked: {}",
            main_content::panic_message(&*panic)
        ))
    })
}

/// Longest title taken from the first line of a plain-text payload, in characters.
const MAX_PLAIN_TITLE_CHARS: usize = 200;

fn extract_plain_text(decoded: &str, encoding: &'static str) -> Extracted {
    let text = lines::clean_plain_text(decoded);
    let title = text
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|line| !line.is_empty())
        .map(|line| line.chars().take(MAX_PLAIN_TITLE_CHARS).collect())
        .unwrap_or_default();
    Extracted {
        title,
        main_text: Some(text.clone()),
        visible_text: text,
        encoding,
        blocks: Vec::new(),
        redirect_stub: false,
    }
}

#[cfg(test)]
mod tests;
