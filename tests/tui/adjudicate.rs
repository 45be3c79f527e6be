//! The adjudication screen: the pairs two coders disagree on with each coder's verdict and
//! note, the pair side by side, and final labels by key, logged as `adjudicator:CODER` and
//! taken by the gold the labels imply.

use crate::support::{fixture, press, text_of};
use serde_json::json;
use spotcheck::model::adjudication::Consensus;
use spotcheck::model::PairLabel;
use spotcheck::review::Mode;

#[test]
fn adjudication_lists_disagreements_and_records_final_labels_by_key() {
    let f = fixture();
    let d = &f.docs;
    {
        let mut st = f.store();
        // Ann calls the story's first two framings one story (with a note) and the two
        // help pages different; Bob says the opposite of both.
        st.record_decision("ann", "confirm", &[d[0], d[1]], json!({}))
            .unwrap();
        st.record_decision(
            "ann",
            "note",
            &[d[0], d[1]],
            json!({"note": "same wire story\u{1b}]0;pwned\u{7}"}),
        )
        .unwrap();
        st.record_decision("bob", "reject", &[d[0], d[1]], json!({}))
            .unwrap();
        st.record_decision("ann", "reject", &[d[3], d[4]], json!({}))
            .unwrap();
        st.record_decision("bob", "confirm", &[d[3], d[4]], json!({}))
            .unwrap();
    }
    let mut s = f.session("lead");
    let buf = press(&mut s, &["A"]);
    assert_eq!(s.mode(), Mode::Adjudicate);
    insta::assert_snapshot!("adjudication_open", text_of(&buf));
    let t = text_of(&buf);
    assert!(t.contains("2 pairs the coders disagree on, 2 open"), "{t}");
    assert!(t.contains("note: same wire story"), "{t}");
    assert!(!t.contains("pwned"), "{t}");
    assert!(t.contains("The new harbour bridge opened"), "{t}");

    // x: the story pair is different; the cursor moves on to the help pages.
    let t = text_of(&press(&mut s, &["x"]));
    assert!(
        t.contains("adjudicator:lead: 1 / 2 are different · 1 open"),
        "{t}"
    );
    assert!(t.contains("pair 4 / 5 · open"), "{t}");
    // y: the help pages are one page; back to the first pair, now settled.
    let buf = press(&mut s, &["y", "k"]);
    insta::assert_snapshot!("adjudication_settled", text_of(&buf));
    let t = text_of(&buf);
    assert!(
        t.contains("pair 1 / 2 · final: different · 0 of 2 pairs open"),
        "{t}"
    );
    assert!(t.contains("adjudicator:lead different"), "{t}");
    press(&mut s, &["q"]);
    assert_eq!(s.mode(), Mode::Queue);
    assert!(s.adjudication.is_none());
    drop(s);

    // The final labels are in the log under the adjudicator's key, and settle the pairs.
    let st = f.store();
    assert_eq!(st.decision_log("adjudicator:lead").unwrap().len(), 2);
    assert!(st.disagreements(true).unwrap().is_empty());
    let all = st.disagreements(false).unwrap();
    assert_eq!(
        all.iter().map(|x| x.consensus()).collect::<Vec<_>>(),
        vec![
            Consensus::Adjudicated(PairLabel::Different),
            Consensus::Adjudicated(PairLabel::Same)
        ]
    );
    let ag = st.adjudicated_agreements().unwrap();
    assert_eq!(ag.len(), 1);
    assert_eq!((ag[0].disagreed, ag[0].resolved), (2, 2));
    assert_eq!(ag[0].before.agreed, 0);
    assert_eq!(ag[0].after.agreed, 2);
}

#[test]
fn adjudication_with_nothing_to_adjudicate_says_so() {
    let f = fixture();
    let mut s = f.session("lead");
    let t = text_of(&press(&mut s, &["A"]));
    assert!(t.contains("nothing to adjudicate"), "{t}");
    // y does nothing here (no pair), and records nothing.
    press(&mut s, &["y", "q"]);
    assert_eq!(s.mode(), Mode::Queue);
    assert!(f
        .store()
        .decision_log("adjudicator:lead")
        .unwrap()
        .is_empty());
}
