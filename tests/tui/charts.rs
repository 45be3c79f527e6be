//! The chart screen: a run's score histogram with a what-if threshold moved by keys (pairs,
//! groups, precision and recall at it), the group-size distribution and the progress.

use crate::support::{fixture, press, press_held, release, text_of};
use spotcheck::review::Mode;

#[test]
fn moving_the_threshold_shows_what_vanishes_with_precision_and_recall() {
    let f = fixture();
    let mut s = f.session("ann");
    // Ann confirms the story: its three pairs are labeled same.
    press(&mut s, &["y"]);
    // The charts open on the first run by name (I-Match, no threshold); m shows SpotSigs.
    let t = text_of(&press(&mut s, &["p"]));
    assert_eq!(s.mode(), Mode::Chart);
    assert!(
        t.contains("imatch run 2 · 2 pairs · run threshold none"),
        "{t}"
    );
    let buf = press(&mut s, &["m", "]", "]", "]"]);
    insta::assert_snapshot!("charts_threshold_moved", text_of(&buf));
    let t = text_of(&buf);
    assert!(
        t.contains("spotsigs run 1 · 4 pairs · run threshold 0.50 · what-if 0.65"),
        "{t}"
    );
    // SpotSigs' pairs score 0.91, 0.70, 0.62, 0.55: at 0.65 two remain, in one group.
    assert!(
        t.contains("at 0.65 (run: 0.50): 2 pairs (-2) · 1 groups (-1) · precision 1.00 · recall 0.67 (2 labeled pairs)"),
        "{t}"
    );
    // The size distribution of the merged queue: three entries, two of 2 and one of 3.
    assert!(t.contains("group sizes · 3 groups (merged queue)"), "{t}");
    assert!(
        t.contains("decisions per day · 1 in all · over 1 day"),
        "{t}"
    );
    // Down again: the pairs come back.
    let t = text_of(&press(&mut s, &["[", "[", "["]));
    assert!(t.contains("at 0.50 (run: 0.50): 4 pairs · 2 groups"), "{t}");
    // q leaves the charts for the queue.
    press(&mut s, &["q"]);
    assert_eq!(s.mode(), Mode::Queue);
    assert!(s.charts.is_none());
}

#[test]
fn the_chart_screen_opens_at_once_and_each_run_fills_in_off_the_ui_thread() {
    let f = fixture();
    let mut s = f.session("ann");
    // The worker held: the screen is there, its figures not yet read.
    let buf = press_held(&mut s, &["p"]);
    insta::assert_snapshot!("charts_computing", text_of(&buf));
    let t = text_of(&buf);
    assert_eq!(s.mode(), Mode::Chart);
    assert!(s.busy());
    assert!(t.contains("computing…"), "{t}");
    let t = text_of(&release(&mut s));
    assert!(!s.busy());
    assert!(
        t.contains("imatch run 2 · 2 pairs · run threshold none"),
        "{t}"
    );
    // The next run: its histogram at once, its what-if computed off the UI thread; a
    // threshold key meanwhile does nothing.
    let t = text_of(&press_held(&mut s, &["m", "]"]));
    assert!(s.busy());
    assert!(
        t.contains("spotsigs run 1 · 4 pairs · run threshold 0.50 · what-if computing…"),
        "{t}"
    );
    assert!(
        t.contains("computing the what-if of run 1 (4 pairs)…"),
        "{t}"
    );
    let t = text_of(&release(&mut s));
    assert!(t.contains("at 0.50 (run: 0.50): 4 pairs · 2 groups"), "{t}");
    // Back to a run already computed: at once, with the worker held.
    let t = text_of(&press_held(&mut s, &["m"]));
    assert!(!s.busy());
    assert!(t.contains("imatch run 2 · 2 pairs"), "{t}");
    assert!(!t.contains("computing"), "{t}");
    // Leaving while the figures are being read drops them: nothing is waited for.
    press_held(&mut s, &["Esc", "p", "Esc"]);
    assert_eq!(s.mode(), Mode::Queue);
    assert!(!s.busy());
    let _ = release(&mut s);
    assert!(s.charts.is_none());
}
