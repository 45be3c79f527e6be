//! Language identification of a document's text (whatlang: trigram profiles of 69
//! languages, pure Rust, no model files), reported as a short code: ISO 639-1 where the
//! language has one (`en`, `de`, `zh`, `ur`), else whatlang's ISO 639-3 code, and `und`
//! when the text gives no answer (too short, symbols only, or a script whatlang does not
//! know). Identification never fails: an unknown language is `und`, not an error.
//!
//! whatlang was chosen over lingua for its size: lingua's models are ~100 MB of language
//! data in the binary, whatlang's profiles are compiled in at a few hundred KB, and it reads
//! a page in microseconds (BENCHMARKS.md, issue 14 "Languages").

/// The code stored for a text whose language is unknown.
pub const UNDETERMINED: &str = "und";

/// At most this many bytes of a text are read: whatlang's trigram scores settle long
/// before this on a real page, and a 5 MB text must not cost 5 MB of trigram counting.
const READ_BYTES: usize = 16 * 1024;

/// Texts with fewer letters than this are `und`: a caption or a menu says nothing
/// reliable about a language (whatlang answers for two words, mostly wrongly).
const MIN_LETTERS: usize = 12;

/// The language of `text` as a short code (see the module header).
pub fn identify(text: &str) -> &'static str {
    let head = prefix(text, READ_BYTES);
    if head
        .chars()
        .filter(|c| c.is_alphabetic())
        .take(MIN_LETTERS)
        .count()
        < MIN_LETTERS
    {
        return UNDETERMINED;
    }
    match whatlang::detect(head) {
        Some(info) => short_code(info.lang()),
        None => UNDETERMINED,
    }
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
