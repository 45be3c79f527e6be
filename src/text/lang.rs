//! Language identification of a document's text (whatlang: trigram profiles of 69
//! languages, pure Rust, no model files), reported as a short code: ISO 639-1 where the
//! language has one (`en`, `de`, `zh`, `ur`), else whatlang's ISO 639-3 code, and `und`
//! when the text gives no answer (too short, symbols only, or a script whatlang does not
//! know). Identification never fails: an unknown language is `und`, not an error.
//!
//! whatlang is small (its trigram profiles are compiled in, no model files) and costs about
//! 0.2 ms of CPU per page (BENCHMARKS.md, issue 14 "Languages"); lingua, more accurate on
//! short texts, was not measured. Most pages of an English crawl never reach it: a text in
//! Latin script whose words are dense in English function words that no other Latin-script
//! language uses (`the`, `and`, `which`…) is English at the cost of one pass over its first
//! words ([`english_by_function_words`]; BENCHMARKS.md, "Issue 14: languages and ingest
//! cost (session 3)").

/// The code stored for a text whose language is unknown.
pub const UNDETERMINED: &str = "und";

/// At most this many bytes of a text are read: a 5 MB text must not cost 5 MB of trigram
/// counting. Reading 4 KB instead cost the same CPU (whatlang's cost per text is mostly its
/// comparison with every profile of the script) and misidentified more short English doc
/// pages (fr 40 instead of 29 of 3,200 ci-dd pages).
const READ_BYTES: usize = 16 * 1024;

/// Texts with fewer letters than this are `und`: a caption or a menu says nothing
/// reliable about a language (whatlang answers for two words, mostly wrongly).
const MIN_LETTERS: usize = 12;

/// The language of `text` as a short code (see the module header).
pub fn identify(text: &str) -> &'static str {
    let head = prefix(text, READ_BYTES);
    if !enough_letters(head) {
        return UNDETERMINED;
    }
    if english_by_function_words(head) {
        return "en";
    }
    by_trigrams(head)
}

/// [`identify`] without the function-word shortcut: whatlang's answer on the same prefix.
/// Kept for measuring the shortcut against it (`examples/lang_cost.rs`).
pub fn identify_by_trigrams(text: &str) -> &'static str {
    let head = prefix(text, READ_BYTES);
    if !enough_letters(head) {
        return UNDETERMINED;
    }
    by_trigrams(head)
}

fn enough_letters(head: &str) -> bool {
    head.chars()
        .filter(|c| c.is_alphabetic())
        .take(MIN_LETTERS)
        .count()
        >= MIN_LETTERS
}

fn by_trigrams(head: &str) -> &'static str {
    match whatlang::detect(head) {
        Some(info) => short_code(info.lang()),
        None => UNDETERMINED,
    }
}

/// Words read by [`english_by_function_words`]: enough for a stable share, a few KB.
const SHORTCUT_WORDS: usize = 400;
/// Fewer words than this say nothing reliable: whatlang decides. At 30 words two short
/// German copies of news-v2 mixed with English phrases (5 such words of 62) were taken for
/// English; from 100 words on no page of ci-dd or news-v2 is decided otherwise than
/// whatlang decides it.
const SHORTCUT_MIN_WORDS: usize = 100;
/// Share (per cent) of the words that must be [`english_only`] words. English prose has
/// 10–15% (`the` alone ~5%); no page whatlang identifies as another language has more than
/// 4% on ci-dd and news-v2 (an English name, title or quote).
const SHORTCUT_MIN_PERCENT: usize = 7;

/// Whether English function words no other Latin-script language uses decide that `head`
/// is English: among its first [`SHORTCUT_WORDS`] words at least [`SHORTCUT_MIN_PERCENT`]
/// per cent are such words, and no letter outside the Latin script occurs before them (a
/// text in another script, or mixed, goes to whatlang).
pub fn english_by_function_words(head: &str) -> bool {
    let mut words = 0usize;
    let mut hits = 0usize;
    let mut word = [0u8; 8];
    let mut len = 0usize;
    let mut in_word = false;
    for c in head.chars() {
        if c.is_ascii_alphabetic() {
            if len < word.len() {
                word[len] = c.to_ascii_lowercase() as u8;
            }
            len += 1;
            in_word = true;
            continue;
        }
        if c.is_alphabetic() {
            // Latin-1 and Latin Extended letters (é, ß, ł…) are Latin; any other letter is
            // another script.
            if c as u32 > 0x024F {
                return false;
            }
            // A word with such a letter is no English function word.
            len = word.len() + 1;
            in_word = true;
            continue;
        }
        if in_word {
            words += 1;
            if len <= word.len() && english_only(&word[..len]) {
                hits += 1;
            }
            len = 0;
            in_word = false;
            if words >= SHORTCUT_WORDS {
                break;
            }
        }
    }
    if in_word {
        words += 1;
        if len <= word.len() && english_only(&word[..len]) {
            hits += 1;
        }
    }
    words >= SHORTCUT_MIN_WORDS && hits * 100 >= words * SHORTCUT_MIN_PERCENT
}

/// Frequent English function words that are not common words of another Latin-script
/// language whatlang knows (left out: `a`, `in`, `is`, `of`, `to`, `on`, `for`, `by`,
/// `was`, `will`, `are`, `die`…: Spanish, Dutch, Czech, French, Danish, German, Romanian
/// words; a word of another language followed by a non-ASCII letter is not a word here).
fn english_only(w: &[u8]) -> bool {
    matches!(
        w,
        b"the"
            | b"and"
            | b"that"
            | b"this"
            | b"with"
            | b"from"
            | b"which"
            | b"were"
            | b"have"
            | b"been"
            | b"their"
            | b"there"
            | b"these"
            | b"those"
            | b"would"
            | b"should"
            | b"could"
            | b"what"
            | b"when"
            | b"about"
            | b"into"
            | b"they"
            | b"not"
            | b"you"
    )
}

/// The longest prefix of `text` of at most `max` bytes that ends on a char boundary.
fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// ISO 639-1 for the languages that have one, else whatlang's ISO 639-3 code.
pub fn short_code(lang: whatlang::Lang) -> &'static str {
    use whatlang::Lang::*;
    match lang {
        Afr => "af",
        Aka => "ak",
        Amh => "am",
        Ara => "ar",
        Aze => "az",
        Bel => "be",
        Ben => "bn",
        Bul => "bg",
        Cat => "ca",
        Ces => "cs",
        Cmn => "zh",
        Cym => "cy",
        Dan => "da",
        Deu => "de",
        Ell => "el",
        Eng => "en",
        Epo => "eo",
        Est => "et",
        Fin => "fi",
        Fra => "fr",
        Guj => "gu",
        Heb => "he",
        Hin => "hi",
        Hrv => "hr",
        Hun => "hu",
        Hye => "hy",
        Ind => "id",
        Ita => "it",
        Jav => "jv",
        Jpn => "ja",
        Kan => "kn",
        Kat => "ka",
        Khm => "km",
        Kor => "ko",
        Lat => "la",
        Lav => "lv",
        Lit => "lt",
        Mal => "ml",
        Mar => "mr",
        Mkd => "mk",
        Mya => "my",
        Nep => "ne",
        Nld => "nl",
        Nob => "nb",
        Ori => "or",
        Pan => "pa",
        Pes => "fa",
        Pol => "pl",
        Por => "pt",
        Ron => "ro",
        Rus => "ru",
        Sin => "si",
        Slk => "sk",
        Slv => "sl",
        Sna => "sn",
        Spa => "es",
        Srp => "sr",
        Swe => "sv",
        Tam => "ta",
        Tel => "te",
        Tgl => "tl",
        Tha => "th",
        Tuk => "tk",
        Tur => "tr",
        Ukr => "uk",
        Urd => "ur",
        Uzb => "uz",
        Vie => "vi",
        Yid => "yi",
        Zul => "zu",
        #[allow(unreachable_patterns)]
        other => other.code(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifies_news_languages() {
        let cases = [
            ("en", "The minister said on Tuesday that the government would not raise taxes this year, despite the pressure from the opposition."),
            ("de", "Der Minister sagte am Dienstag, dass die Regierung die Steuern in diesem Jahr nicht erhöhen werde, trotz des Drucks der Opposition."),
            ("fr", "Le ministre a déclaré mardi que le gouvernement n'augmenterait pas les impôts cette année, malgré la pression de l'opposition."),
            ("es", "El ministro dijo el martes que el gobierno no subirá los impuestos este año, a pesar de la presión de la oposición."),
            ("ru", "Министр заявил во вторник, что правительство не будет повышать налоги в этом году, несмотря на давление оппозиции."),
            ("ar", "قال الوزير يوم الثلاثاء إن الحكومة لن ترفع الضرائب هذا العام رغم ضغوط المعارضة."),
            ("zh", "部长周二表示，尽管面临反对派的压力，政府今年不会提高税收。"),
            ("ja", "大臣は火曜日、野党からの圧力にもかかわらず、政府は今年増税しないと述べた。"),
            ("ur", "وزیر نے منگل کو کہا کہ حکومت اس سال ٹیکس میں اضافہ نہیں کرے گی، اپوزیشن کے دباؤ کے باوجود۔"),
        ];
        for (want, text) in cases {
            assert_eq!(identify(text), want, "{text}");
        }
    }

    #[test]
    fn english_prose_is_decided_by_its_function_words_and_other_languages_are_not() {
        let en = "The committee said that the plan, which has been delayed twice, would be \
                  voted on next week. They have not yet published the text of the agreement, \
                  and critics say that the changes could affect thousands of families who \
                  rely on the programme when their benefits are reviewed this year.";
        assert!(
            !english_by_function_words(en),
            "under 100 words: whatlang decides"
        );
        let en = format!("{en} {en}");
        assert!(english_by_function_words(&en));
        assert_eq!(identify(&en), "en");
        let others = [
            "Der Minister sagte am Dienstag, dass die Regierung die Steuern in diesem Jahr nicht erhöhen werde, trotz des Drucks der Opposition, und dass die Pläne was auch immer kommt bleiben. Die Opposition will das nicht hinnehmen und kündigt Widerstand im Parlament an, wo die Mehrheit knapp ist.",
            "Le ministre a déclaré mardi que le gouvernement n'augmenterait pas les impôts cette année, malgré la pression de l'opposition, qui a dénoncé un budget injuste pour les familles et les retraités. Le débat reprendra la semaine prochaine à l'Assemblée nationale.",
            "De minister zei dinsdag dat de regering de belastingen dit jaar niet zal verhogen, ondanks de druk van de oppositie, die het plan onrechtvaardig vindt. Of het parlement het voorstel steunt is nog niet duidelijk, want de meerderheid is klein en de partijen zijn verdeeld.",
            "Ministrul a declarat marți că guvernul nu va crește taxele anul acesta, în ciuda presiunii opoziției, care are o altă părere despre buget. Dezbaterea va continua săptămâna viitoare în parlament, unde majoritatea este fragilă și partidele sunt împărțite.",
        ];
        for text in others {
            let text = format!("{text} {text}");
            assert!(!english_by_function_words(&text), "{text}");
        }
        // Another script, even with English words around it, goes to whatlang.
        assert!(!english_by_function_words(&format!(
            "{en} 政府今年不会提高税收"
        )));
        // Too few words to say.
        assert!(!english_by_function_words("the and that this with from"));
    }

    #[test]
    fn short_or_empty_texts_are_undetermined() {
        assert_eq!(identify(""), UNDETERMINED);
        assert_eq!(identify("Home | About"), UNDETERMINED);
        assert_eq!(identify("12345 67890 !!! ---"), UNDETERMINED);
    }

    #[test]
    fn long_texts_are_read_from_a_prefix_cut_on_a_char_boundary() {
        let text = "é".repeat(READ_BYTES); // two bytes each: the cut falls inside one
        assert!(prefix(&text, READ_BYTES + 1).len() <= READ_BYTES + 1);
        assert!(text.is_char_boundary(prefix(&text, READ_BYTES + 1).len()));
        let german = "Die Regierung hat am Dienstag beschlossen, die Steuern nicht zu erhöhen. "
            .repeat(2000);
        assert_eq!(identify(&german), "de");
    }

    #[test]
    fn every_code_is_short_and_lowercase() {
        for &lang in whatlang::Lang::all() {
            let code = short_code(lang);
            assert!((2..=3).contains(&code.len()), "{code}");
            assert!(code.chars().all(|c| c.is_ascii_lowercase()), "{code}");
        }
    }
}
