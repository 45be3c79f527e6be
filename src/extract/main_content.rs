//! Main content of an article page: the readability-style extractor of `dom_smoothie`,
//! asked for formatted plain text, then normalized like the visible text.
//!
//! The extractor builds a full DOM and walks it, so it runs on its own thread with a large
//! stack: a panic there is caught by the join (the caller turns it into an error for this
//! page) and deep nesting cannot overflow the calling thread's stack. Pages that are too big
//! or too deep are not given to it at all (see [`MainLimits`]).

use dom_smoothie::{Config, Readability, ReadabilityError, TextMode};

use super::lines::normalize_lines;

/// When the main-content extractor is skipped.
#[derive(Debug, Clone, Copy)]
pub struct MainLimits {
    /// Decoded HTML larger than this is not given to the extractor.
    pub max_html_bytes: usize,
    /// Pages with more start tags than this are not given to the extractor.
    pub max_elements: usize,
    /// Pages nested deeper than this (the estimate of `visible::Visible::max_depth`) are
    /// skipped: the news corpus peaks at 34.
    pub max_depth: usize,
    /// Pages whose element count times nesting depth exceeds this are skipped: the
    /// extractor's scoring walks ancestors, so its cost grows with that product (measured:
    /// 2,500 elements 500 deep take 0.3 s; the news corpus peaks at 0.42 million).
    pub max_work: usize,
    /// Pages with a tag holding more attributes than this are skipped: html5ever drops
    /// duplicate attributes by a linear search, so one tag of n attributes costs n²
    /// (measured: 200,000 attributes took 17.7 s; 1,000 take well under a millisecond).
    pub max_attributes: usize,
    /// Longest text kept, in bytes.
    pub max_text_bytes: usize,
}

impl Default for MainLimits {
    fn default() -> Self {
        MainLimits {
            max_html_bytes: 2 << 20,
            max_elements: 60_000,
            max_depth: 512,
            max_work: 2_000_000,
            max_attributes: 1_000,
            max_text_bytes: 4 << 20,
        }
    }
}

/// Stack of the extractor thread: generous, because the DOM walks recurse.
const EXTRACTOR_STACK_BYTES: usize = 64 << 20;

/// Why no main text was produced although the page was eligible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MainFailure {
    /// The extractor panicked (message attached).
    Panicked(String),
    /// The operating system refused a thread.
    NoThread(String),
}

impl MainLimits {
    /// Whether a page of this size and shape may be given to the extractor.
    pub fn admits(
        &self,
        html_bytes: usize,
        elements: usize,
        depth: usize,
        attributes: usize,
    ) -> bool {
        attributes <= self.max_attributes
            && html_bytes <= self.max_html_bytes
            && elements <= self.max_elements
            && depth <= self.max_depth
            && elements.saturating_mul(depth) <= self.max_work
    }
}

/// Runs the extractor on `html`; `Ok(None)` when it finds no article.
pub fn main_text(html: &str, limits: MainLimits) -> Result<Option<String>, MainFailure> {
    let owned = html.to_owned();
    on_big_stack(move || run_extractor(owned, limits.max_text_bytes))
}

/// Runs `work` on a fresh thread with [`EXTRACTOR_STACK_BYTES`] of stack; a panic in it is
/// returned as [`MainFailure::Panicked`].
pub fn on_big_stack<T, F>(work: F) -> Result<T, MainFailure>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let worker = std::thread::Builder::new()
        .name("main-content".into())
        .stack_size(EXTRACTOR_STACK_BYTES)
        .spawn(work)
        .map_err(|e| MainFailure::NoThread(e.to_string()))?;
    worker
        .join()
        .map_err(|panic| MainFailure::Panicked(panic_message(&*panic)))
}

fn run_extractor(html: String, max_text_bytes: usize) -> Option<String> {
    let config = Config {
        text_mode: TextMode::Formatted,
        ..Config::default()
    };
    let mut readability = Readability::new(html, None, Some(config)).ok()?;
    let article = match readability.parse() {
        Ok(article) => article,
        Err(ReadabilityError::GrabFailed)
        | Err(ReadabilityError::TooManyElements(..))
        | Err(ReadabilityError::BadDocumentURL) => return None,
    };
    let (text, _truncated) = normalize_lines(&article.text_content, max_text_bytes);
    (!text.is_empty()).then_some(text)
}

/// The text of a panic payload (`&str` or `String`), for the error row.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-text payload".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_article_and_drops_navigation() {
        let para = "The committee met on Tuesday to discuss the new budget, which includes \
            significant increases for schools, roads and public health programs across the region. ";
        let html = format!(
            "<html><head><title>Budget</title><script>var tracking = 1;</script></head><body>\
             <nav><ul><li><a href='/'>Home</a></li><li><a href='/s'>Sports</a></li></ul></nav>\
             <article><h1>Budget approved</h1><p>{}</p><p>{}</p><p>{}</p></article>\
             <footer>Copyright footer text</footer></body></html>",
            para.repeat(2),
            para.repeat(2),
            para.repeat(2)
        );
        let text = main_text(&html, MainLimits::default())
            .expect("no panic")
            .expect("an article");
        assert!(text.contains("The committee met on Tuesday"));
        assert!(!text.contains("tracking"));
        assert!(!text.contains("Sports"));
        assert!(!text.contains("Copyright footer"));
        assert!(!text.contains("\n\n\n"));
    }

    #[test]
    fn a_panic_on_the_big_stack_is_an_error_not_a_crash() {
        let result: Result<(), _> = on_big_stack(|| panic!("parser bug"));
        assert_eq!(result, Err(MainFailure::Panicked("parser bug".into())));
        let result: Result<(), _> = on_big_stack(|| panic!("{} bug", "formatted"));
        assert_eq!(result, Err(MainFailure::Panicked("formatted bug".into())));
    }

    #[test]
    fn the_big_stack_holds_deep_recursion() {
        fn depth(n: u64) -> u64 {
            let pad = std::hint::black_box([0u8; 512]);
            if n == 0 {
                u64::from(pad[0])
            } else {
                1 + depth(n - 1)
            }
        }
        // ~50 MB of frames: far beyond a default 2 MB thread stack.
        assert_eq!(on_big_stack(|| depth(50_000)), Ok(50_000));
    }

    #[test]
    fn empty_page_has_no_article() {
        assert_eq!(main_text("", MainLimits::default()), Ok(None));
        assert_eq!(main_text("<p></p>", MainLimits::default()), Ok(None));
    }
}
