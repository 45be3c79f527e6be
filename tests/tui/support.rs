//! A small review database for the TUI tests: three framings of one news story, two
//! help pages on one template and a hostile page crawled twice, with a SpotSigs and an
//! I-Match run (merged into three queue entries: the story found by both, the help pages
//! by SpotSigs only, the hostile pages by I-Match only).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use ratatui::buffer::Buffer;
use spotcheck::review::Session;
use spotcheck::store::{ClusterRow, Store};
use spotcheck::tui::Keymap;

pub const STORY_A: &str = "The new harbour bridge opened on Monday after a decade of delays.\nMayor Ana Ruiz cut the ribbon as crowds cheered along the quay.\nThe bridge carries two tram lines and a cycle path.\n\nDaily Courier: subscribe for more local news.";
pub const STORY_B: &str = "Metro Post | News\nThe new harbour bridge opened on Monday after a decade of delays.\nMayor Ana Ruiz cut the ribbon while crowds cheered along the quay.\nThe bridge carries two tram lines and a cycle path.\nMore from Metro Post.";
pub const STORY_C: &str = "The new harbour bridge opened on Monday.\nMayor Ana Ruiz cut the ribbon.\nEditor's note: an earlier version misstated the opening date.";
pub const HELP_A: &str = "Help Center\nReset your password\nOpen Settings, choose Security and press Reset password. We send a link to your email.";
pub const HELP_B: &str = "Help Center\nChange your email\nOpen Settings, choose Account and press Change email. We send a link to your new email.";
pub const HOSTILE: &str = "This page was crawled from a hostile site.\n\u{1b}[2J\u{1b}[H\u{1b}[31mRED ALERT\u{1b}[0m\tafter a tab\u{7}\u{8}\n\u{202e}reversed\u{202c} and \u{1b}]8;;http://evil.example\u{1b}\\a link\u{1b}]8;;\u{1b}\\ and a \u{9b}31mC1 sequence.";

/// The hostile page crawled again with one more line (the I-Match run pairs the two).
pub const HOSTILE_AGAIN: &str = "This page was crawled from a hostile site.\n\u{1b}[2J\u{1b}[H\u{1b}[31mRED ALERT\u{1b}[0m\tafter a tab\u{7}\u{8}\n\u{202e}reversed\u{202c} and \u{1b}]8;;http://evil.example\u{1b}\\a link\u{1b}]8;;\u{1b}\\ and a \u{9b}31mC1 sequence.\nCrawled again.";

/// Document ids of the fixture, in insertion order (1..=7 in a fresh database).
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
    pub docs: Vec<i64>,
}

pub fn build_db(db: &Path) -> Vec<i64> {
    let mut s = Store::open(db).unwrap();
    let docs: Vec<i64> = [
        (
            "http://daily-courier.example/2024/bridge",
            "Harbour bridge opens after decade of delays",
            STORY_A,
            Some("The new harbour bridge opened on Monday after a decade of delays."),
        ),
        (
            "http://metro-post.example/news/bridge-opens",
            "Harbour bridge opens | Metro Post",
            STORY_B,
            None,
        ),
        (
            "http://valley-gazette.example/b?id=7",
            "Bridge opens",
            STORY_C,
            None,
        ),
        (
            "help/reset-password.html",
            "Reset your password",
            HELP_A,
            None,
        ),
        ("help/change-email.html", "Change your email", HELP_B, None),
        (
            "hostile/escapes.html",
            "Totally normal page\u{1b}]0;pwned\u{7}",
            HOSTILE,
            None,
        ),
        (
            "hostile/escapes-again.html",
            "Totally normal page again",
            HOSTILE_AGAIN,
            None,
        ),
    ]
    .iter()
    .map(|(url, title, text, main)| s.insert_test_document(url, title, text, *main).unwrap())
    .collect();
    let d = |i: usize| docs[i];
    let spot = s
        .create_run("spotsigs", &serde_json::json!({"tau": 0.5}))
        .unwrap();
    s.write_run_pairs(
        spot,
        vec![
            (d(0), d(1), 0.91, None),
            (d(0), d(2), 0.70, None),
            (d(1), d(2), 0.62, None),
            (d(3), d(4), 0.55, None),
        ],
    )
    .unwrap();
    s.write_run_clusters(
        spot,
        &[
            ClusterRow {
                members: vec![d(0), d(1), d(2)],
                min_score: Some(0.62),
                max_score: Some(0.91),
                weakest_bridge: Some((d(1), d(2), 0.62)),
            },
            ClusterRow {
                members: vec![d(3), d(4)],
                min_score: Some(0.55),
                max_score: Some(0.55),
                weakest_bridge: None,
            },
        ],
    )
    .unwrap();
    s.finish_run(spot, &serde_json::json!({})).unwrap();
    let im = s
        .create_run("imatch", &serde_json::json!({"bags": 10}))
        .unwrap();
    s.write_run_pairs(
        im,
        vec![
            (d(0), d(1), 1.0, Some("7 of 11 lexicons agree".to_string())),
            (d(5), d(6), 1.0, Some("4 of 11 lexicons agree".to_string())),
        ],
    )
    .unwrap();
    s.write_run_clusters(
        im,
        &[
            ClusterRow {
                members: vec![d(0), d(1)],
                min_score: Some(1.0),
                max_score: Some(1.0),
                weakest_bridge: None,
            },
            ClusterRow {
                members: vec![d(5), d(6)],
                min_score: Some(1.0),
                max_score: Some(1.0),
                weakest_bridge: None,
            },
        ],
    )
    .unwrap();
    s.finish_run(im, &serde_json::json!({})).unwrap();
    docs
}

pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("review.db");
    let docs = build_db(&db);
    Fixture { dir, db, docs }
}

impl Fixture {
    pub fn session(&self, coder: &str) -> Session {
        Session::new(Store::open(&self.db).unwrap(), coder, false).unwrap()
    }
    pub fn store(&self) -> Store {
        Store::open(&self.db).unwrap()
    }
}

/// Presses `keys` (keymap names) and returns the last frame at 100×24.
pub fn press(s: &mut Session, keys: &[&str]) -> Buffer {
    spotcheck::tui::render_keys(s, &Keymap::defaults(), keys, 100, 24).unwrap()
}

/// Names for the characters of `text`, to type into a prompt.
pub fn typed(text: &str) -> Vec<String> {
    text.chars()
        .map(|c| {
            if c == ' ' {
                "Space".to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The frame as text, one line per row, trailing blanks trimmed.
pub fn text_of(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Whether `coder` has recorded nothing in the database at `db`.
pub fn fixture_log_is_empty(db: &Path, coder: &str) -> bool {
    Store::open(db)
        .unwrap()
        .decision_log(coder)
        .unwrap()
        .is_empty()
}

/// Presses `keys` with the background worker held and returns the frame drawn after the
/// last one: what the coder sees before the work the keys started is done. The worker stays
/// held; `release` lets it finish.
pub fn press_held(s: &mut Session, keys: &[&str]) -> Buffer {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use spotcheck::tui::{handle_key, parse_key, render};
    s.hold_background(true);
    let keymap = Keymap::defaults();
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    render(&mut term, s, &keymap).unwrap();
    for k in keys {
        handle_key(s, &keymap, parse_key(k).unwrap());
        render(&mut term, s, &keymap).unwrap();
    }
    term.backend().buffer().clone()
}

/// Lets the held worker run, waits for its results (and the keys typed ahead while it was
/// held) and returns the frame drawn then.
pub fn release(s: &mut Session) -> Buffer {
    spotcheck::tui::release_and_render(s, &Keymap::defaults(), 100, 24).unwrap()
}
