//! Tests of `extract()` as a whole: the rules that combine the stages.

use super::*;

/// Extraction with the main-content extractor on (`ingest --main`), as these tests exercise it.
fn html(body: &str) -> Extracted {
    let opts = ExtractOptions {
        main_content: true,
        ..ExtractOptions::default()
    };
    extract(body.as_bytes(), None, false, &opts).expect("extracts")
}

#[test]
fn main_content_is_opt_in() {
    let page = "<p>Some words here, more words there. </p>".repeat(50);
    let x = extract(page.as_bytes(), None, false, &ExtractOptions::default()).expect("extracts");
    assert!(x.visible_text.starts_with("Some words here"));
    assert_eq!(x.main_text, None);
    assert!(html(&page).main_text.is_some());
}

#[test]
fn too_large_is_refused() {
    let opts = ExtractOptions {
        main_content: false,
        max_bytes: 10,
    };
    assert_eq!(
        extract(b"01234567890", None, false, &opts),
        Err(ExtractError::TooLarge(11, 10))
    );
    assert!(extract(b"0123456789", None, false, &opts).is_ok());
}

#[test]
fn title_falls_back_to_first_h1() {
    let x = html("<title> \n </title><body><h1> Big   <b>News</b> </h1><h1>Other</h1></body>");
    assert_eq!(x.title, "Big News");
    let x = html("<title>Real title</title><h1>Heading</h1>");
    assert_eq!(x.title, "Real title");
    let x = html("<p>no title at all</p>");
    assert_eq!(x.title, "");
}

#[test]
fn title_has_no_control_characters() {
    let x = html("<title>\u{1b}]0;pwned\u{7}Hello\tWorld</title>");
    // The OSC sequence goes whole, its payload included.
    assert_eq!(x.title, "Hello World");
}

#[test]
fn plain_text_payload() {
    let body = b"\r\n  \r\n  First line\twith tab  \r\nsecond\rthird\x1b[0m\n";
    let x = extract(body, None, true, &ExtractOptions::default()).expect("extracts");
    assert_eq!(x.title, "First line with tab");
    assert_eq!(
        x.visible_text,
        "\n  \n  First line with tab  \nsecond\nthird\n"
    );
    assert_eq!(x.main_text.as_deref(), Some(x.visible_text.as_str()));
    assert_eq!(x.encoding, "UTF-8");
}

#[test]
fn plain_text_is_not_parsed_as_html_and_title_is_capped() {
    let line = format!("<b>{}</b>", "x".repeat(500));
    let x = extract(line.as_bytes(), None, true, &ExtractOptions::default()).expect("extracts");
    assert!(x.visible_text.starts_with("<b>"));
    assert_eq!(x.title.chars().count(), 200);
}

#[test]
fn plain_text_uses_header_charset_but_not_meta() {
    let body = b"<meta charset=gbk> caf\xe9";
    let x = extract(body, Some("iso-8859-1"), true, &ExtractOptions::default()).expect("ok");
    assert_eq!(x.encoding, "windows-1252");
    assert!(x.visible_text.ends_with("café"));
}

#[test]
fn html_charset_precedence_end_to_end() {
    let body = b"<meta charset=\"windows-1252\"><title>Caf\xe9</title><p>Caf\xe9 cr\xe8me</p>";
    let x = extract(body, None, false, &ExtractOptions::default()).expect("ok");
    assert_eq!(x.encoding, "windows-1252");
    assert_eq!(x.title, "Café");
    assert_eq!(x.visible_text, "Café crème");
    let x = extract(body, Some("utf-8"), false, &ExtractOptions::default()).expect("ok");
    assert_eq!(x.encoding, "UTF-8");
    assert_eq!(x.title, "Caf\u{fffd}");
}

#[test]
fn invalid_bytes_never_panic_and_give_utf8() {
    let body: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    for is_text in [false, true] {
        let x = extract(&body, None, is_text, &ExtractOptions::default()).expect("extracts");
        for t in [&x.visible_text, &x.title] {
            assert!(!t.chars().any(|c| c.is_control() && c != '\n'));
        }
    }
}

#[test]
fn main_content_off_gives_none() {
    let opts = ExtractOptions {
        main_content: false,
        ..ExtractOptions::default()
    };
    let x = extract(b"<p>text</p>", None, false, &opts).expect("ok");
    assert_eq!(x.main_text, None);
    assert_eq!(x.visible_text, "text");
}

#[test]
fn stray_end_tags_do_not_hide_depth_from_the_limits() {
    let page = "<b>x</x>".repeat(5_000);
    let x = html(&page);
    assert!(x.visible_text.starts_with("xxxxx"));
    assert_eq!(x.main_text, None);
}

#[test]
fn deeply_nested_page_is_extracted_without_main_content() {
    let page = "<div>".repeat(100_000) + "deep text" + &"</div>".repeat(100_000);
    let x = html(&page);
    assert_eq!(x.visible_text, "deep text");
    assert_eq!(x.main_text, None);
}

#[test]
fn moderately_nested_page_does_not_overflow_the_extractor() {
    // Just under the depth limit: the extractor runs (on its own big stack) and succeeds.
    let page = "<div>".repeat(500) + &"<p>Some words here, more words there. ".repeat(50);
    let x = html(&page);
    assert!(x.visible_text.starts_with("Some words here"));
    assert!(x.main_text.is_some());
}

#[test]
fn a_panic_becomes_failed() {
    assert_eq!(isolate("test parser", || 7), Ok(7));
    let result: Result<(), _> = isolate("test parser", || panic!("boom"));
    assert_eq!(
        result,
        Err(ExtractError::Failed("test parser panicked: boom".into()))
    );
}
