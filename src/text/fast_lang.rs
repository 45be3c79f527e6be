//! whatlang's answer for Latin-script text, computed without its slowest loop: the same
//! language `whatlang::detect` returns, for every text (a property test and a check on
//! real corpora compare the two), several times faster on short texts.
//!
//! Why by hand: whatlang's trigram method scores a text against each of the 37 Latin
//! profiles by looking each of the profile's 300 trigrams up in the text's trigram map —
//! 11,100 hash look-ups per text whatever its length. That loop was ~95% of whatlang's
//! time, and whatlang 24% of `detect`'s CPU at a million pages (the across-languages rule
//! identifies ~1.8 M distinct lines, each a short text; BENCHMARKS.md, issue 16 session
//! 18). Here the profiles are inverted once (trigram → the languages and ranks that hold
//! it), so a text costs one look-up per distinct trigram of its own. The distance is the
//! same integer: whatlang's sum over the profile of `|position in text − rank|`, or 300 for
//! a trigram the text lacks, equals `300 · |profile| − Σ (300 − |position − rank|)` over
//! the trigrams both hold.
//!
//! Everything else is whatlang's own code or a line-for-line copy of it: the script
//! (`whatlang::detect_script`), the alphabet scores (its `dev` API), the trigram counting
//! and ranking, the score arithmetic, the weighting of the two methods and both sorts
//! (the same unstable sorts on the same input order, so ties fall the same way). Other
//! scripts go to `whatlang::detect` unchanged. The profiles are generated from the
//! crate's source (`whatlang_latin.rs`); Cargo.toml pins the whatlang version they match.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use whatlang::dev::{alphabet_latin_calculate_scores, FilterList, LowercaseText};
use whatlang::{Lang, Script};

use super::whatlang_latin::LATIN_PROFILES;

/// whatlang's `MAX_TRIGRAM_DISTANCE`.
const MAX_TRIGRAM_DISTANCE: u32 = 300;
/// whatlang's `MAX_TOTAL_DISTANCE`.
const MAX_TOTAL_DISTANCE: u32 = MAX_TRIGRAM_DISTANCE * MAX_TRIGRAM_DISTANCE;
/// whatlang's `TEXT_TRIGRAMS_SIZE`: only a text's 600 most frequent trigrams have a
/// position.
const TEXT_TRIGRAMS_SIZE: usize = 600;

/// The language whatlang's `detect(text)` gives, `None` where it gives none.
pub fn detect_lang(text: &str) -> Option<Lang> {
    let script = whatlang::detect_script(text)?;
    if script != Script::Latin {
        return whatlang::detect(text).map(|info| info.lang());
    }
    let profiles = latin_profiles();
    let lower = LowercaseText::new(text);
    let alphabet = alphabet_latin_calculate_scores(&lower, &FilterList::All);
    let trigram_scores = trigram_scores(&lower, profiles);

    // whatlang's `combined::raw_detect`, line for line.
    let mut all_langs: Vec<Lang> = alphabet.scores.iter().map(|x| x.0).collect();
    for (lang, _) in trigram_scores.iter() {
        if !all_langs.contains(lang) {
            all_langs.push(*lang);
        }
    }
    let alphabet_weight = calc_alphabet_weight(alphabet.count);
    let trigram_weight = 1.0 - alphabet_weight;
    let mut scores = Vec::with_capacity(all_langs.len());
    for lang in all_langs {
        let a: f64 = alphabet
            .scores
            .iter()
            .find(|(l, _)| l == &lang)
            .map(|x| x.1)
            .unwrap_or(0.0);
        let t: f64 = trigram_scores
            .iter()
            .find(|(l, _)| l == &lang)
            .map(|x| x.1)
            .unwrap_or(0.0);
        scores.push((lang, a * alphabet_weight + t * trigram_weight));
    }
    scores.sort_unstable_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Less));
    scores.first().map(|&(lang, _)| lang)
}

/// whatlang's `combined::calc_alphabet_weight`.
fn calc_alphabet_weight(count: usize) -> f64 {
    let weight = -(count as f64 / 300.0) + 2.0 / 3.0;
    weight.clamp(1.0 / 3.0, 2.0 / 3.0)
}

/// A trigram as whatlang orders them (its `Trigram(char, char, char)` derives `Ord`): the
/// three chars, 21 bits each, first char highest.
fn pack(c1: char, c2: char, c3: char) -> u64 {
    (u64::from(c1 as u32) << 42) | (u64::from(c2 as u32) << 21) | u64::from(c3 as u32)
}

/// The Latin profiles: each language in whatlang's order with its profile's length, and
/// every trigram's (language index, rank) entries.
struct LatinProfiles {
    langs: Vec<(Lang, u32)>,
    holders: FxHashMap<u64, Vec<(u8, u16)>>,
}

fn latin_profiles() -> &'static LatinProfiles {
    static PROFILES: OnceLock<LatinProfiles> = OnceLock::new();
    PROFILES.get_or_init(|| {
        let mut langs = Vec::with_capacity(LATIN_PROFILES.len());
        let mut holders: FxHashMap<u64, Vec<(u8, u16)>> = FxHashMap::default();
        for &(code, profile) in LATIN_PROFILES {
            // The generated table holds whatlang's own codes (a test reads every one); a
            // language's index is its place in `langs`, which the scores are indexed by.
            let Some(lang) = Lang::from_code(code) else {
                continue;
            };
            let index = langs.len();
            let chars: Vec<char> = profile.chars().collect();
            let mut len = 0u32;
            for (rank, t) in chars.chunks_exact(3).enumerate() {
                holders
                    .entry(pack(t[0], t[1], t[2]))
                    .or_default()
                    .push((index as u8, rank as u16));
                len += 1;
            }
            langs.push((lang, len));
        }
        LatinProfiles { langs, holders }
    })
}

/// whatlang's `utils::is_stop_char`: space, punctuation or an ASCII digit.
fn is_stop_char(ch: char) -> bool {
    matches!(ch, '\u{0000}'..='\u{0040}' | '\u{005B}'..='\u{0060}' | '\u{007B}'..='\u{007E}')
}

/// whatlang's trigram method on a lowercased text: each language's score, sorted as
/// whatlang sorts them.
fn trigram_scores(text: &str, profiles: &LatinProfiles) -> Vec<(Lang, f64)> {
    // whatlang's `count`.
    let mut occurrences: FxHashMap<u64, u32> = FxHashMap::default();
    let mut chars = text
        .chars()
        .map(|c| if is_stop_char(c) { ' ' } else { c })
        .chain(Some(' '));
    let mut c1 = ' ';
    // Never empty: a space is chained at the end.
    let mut c2 = chars.next().unwrap_or(' ');
    for c3 in chars {
        if !(c2 == ' ' && (c1 == ' ' || c3 == ' ')) {
            *occurrences.entry(pack(c1, c2, c3)).or_insert(0) += 1;
        }
        c1 = c2;
        c2 = c3;
    }
    // whatlang's `trigram_occurances_to_positions`: by count, then trigram, descending.
    let mut by_count: Vec<(u32, u64)> = occurrences.into_iter().map(|(t, n)| (n, t)).collect();
    by_count.sort_unstable_by(|a, b| b.cmp(a));
    by_count.truncate(TEXT_TRIGRAMS_SIZE);
    let unique_trigrams_count = by_count.len();

    // Σ over the trigrams a language's profile and the text share of (300 − |position −
    // rank|), signed: a position can be up to 599, further than 300 from every rank.
    let mut shared = vec![0i64; profiles.langs.len()];
    for (position, &(_, trigram)) in by_count.iter().enumerate() {
        if let Some(entries) = profiles.holders.get(&trigram) {
            for &(lang, rank) in entries {
                let distance = (position as i64 - i64::from(rank)).abs();
                shared[lang as usize] += i64::from(MAX_TRIGRAM_DISTANCE) - distance;
            }
        }
    }
    // whatlang's `calculate_distance`, from that sum.
    let count = unique_trigrams_count as u32;
    let mut distances: Vec<(Lang, u32)> = profiles
        .langs
        .iter()
        .zip(&shared)
        .map(|(&(lang, len), &shared)| {
            let total = i64::from(MAX_TRIGRAM_DISTANCE) * i64::from(len) - shared;
            // Every term of whatlang's sum is at least 0, so is the total.
            let mut total_dist = total.max(0) as u32;
            if MAX_TRIGRAM_DISTANCE > count {
                let delta = MAX_TRIGRAM_DISTANCE - count;
                total_dist = total_dist.wrapping_sub(delta * MAX_TRIGRAM_DISTANCE);
            }
            (lang, total_dist.clamp(0, MAX_TOTAL_DISTANCE))
        })
        .collect();
    distances.sort_unstable_by_key(|(_, dist)| *dist);
    let max_dist = count * MAX_TRIGRAM_DISTANCE;
    distances
        .iter()
        .map(|&(lang, distance)| {
            let similarity = max_dist.wrapping_sub(distance);
            (lang, similarity as f64 / max_dist as f64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn whatlang(text: &str) -> Option<Lang> {
        whatlang::detect(text).map(|info| info.lang())
    }

    #[test]
    fn the_generated_profiles_are_whatlangs_latin_languages() {
        assert_eq!(latin_profiles().langs.len(), LATIN_PROFILES.len());
        for &(code, profile) in LATIN_PROFILES {
            let lang = Lang::from_code(code).unwrap();
            assert_eq!(whatlang::Script::Latin, lang_script(lang), "{code}");
            assert_eq!(profile.chars().count(), 900, "{code}");
        }
    }

    fn lang_script(lang: Lang) -> Script {
        // whatlang names a language's script only through detection: a profile's own
        // trigrams are in its script.
        let (_, profile) = LATIN_PROFILES
            .iter()
            .find(|(c, _)| Lang::from_code(*c) == Some(lang))
            .unwrap();
        whatlang::detect_script(profile).unwrap()
    }

    #[test]
    fn sentences_in_many_languages_get_whatlangs_answer() {
        let texts = [
            "There is no reason not to learn Esperanto.",
            "Die Ordnung muss für immer in diesem Codebase bleiben",
            "René Descartes est un mathématicien, physicien et philosophe français",
            "Tyrkiske språk eller turkotatariske språk er en språkgruppe bestående av minst 35 språk",
            "El rápido zorro marrón salta sobre el perro perezoso.",
            "pub const _MM_PERM_DCCB: _MM_PERM_ENUM = 0xE9;",
            "Constant core::arch::x86::_MM_PERM_DCCB",
            "Ja kulkee kylmä hetki pariimme, Olet hauras kuin jää",
            "Как умру, то поховайте мене на могилі",
            "これは日本語の文です",
            "x",
            "",
            "12345 !!! ...",
            "a b c d e f g h i j k l m n o p q r s t u v w x y z",
        ];
        for text in texts {
            assert_eq!(detect_lang(text), whatlang(text), "{text:?}");
        }
        // A long text: more than 600 distinct trigrams.
        let long: String = (0..400)
            .map(|i| {
                format!(
                    "word{} lorem ipsum dolor sit amet {} ",
                    i,
                    "xyz".repeat(i % 7)
                )
            })
            .collect();
        assert_eq!(detect_lang(&long), whatlang(&long));
    }

    fn latin_text() -> impl Strategy<Value = String> {
        // Letters with and without diacritics, a few from other scripts, digits,
        // punctuation and spaces: what a page's lines hold.
        let chars = prop::sample::select(
            "abcdefghijklmnopqrstuvwxyzABCDEZ  áéíóúàèçñöüßøåłşğıœ  .,;:_-()0123456789'ёжд"
                .chars()
                .collect::<Vec<char>>(),
        );
        prop::collection::vec(chars, 0..300).prop_map(|v| v.into_iter().collect())
    }

    fn words_text() -> impl Strategy<Value = String> {
        let words = prop::sample::select(vec![
            "the", "and", "of", "der", "die", "und", "le", "la", "les", "et", "el", "los", "y",
            "de", "que", "il", "che", "het", "een", "og", "är", "och", "não", "uma", "function",
            "return", "value", "const", "int", "x86", "std::vec", "für", "été", "año", "się",
        ]);
        prop::collection::vec(words, 0..120).prop_map(|v| v.join(" "))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn random_latin_texts_get_whatlangs_answer(text in latin_text()) {
            prop_assert_eq!(detect_lang(&text), whatlang(&text));
        }

        #[test]
        fn random_word_sequences_get_whatlangs_answer(text in words_text()) {
            prop_assert_eq!(detect_lang(&text), whatlang(&text));
        }
    }
}
