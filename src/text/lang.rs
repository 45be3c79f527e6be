//! Language identification of a document's text (whatlang: trigram profiles of 69
//! languages, pure Rust, no model files), reported as a short code: ISO 639-1 where the
//! language has one (`en`, `de`, `zh`, `ur`), else whatlang's ISO 639-3 code, and `und`
//! when the text gives no answer (too short, symbols only, or a script whatlang does not
//! know). Identification never fails: an unknown language is `und`, not an error.
//!
//! whatlang is small (its trigram profiles are compiled in, no model files) and costs about
//! 0.2 ms of CPU per page (BENCHMARKS.md, issue 14 "Languages"); lingua, more accurate on
//! short texts, was not measured. Latin-script texts get whatlang's answer from
//! [`super::fast_lang`], which computes the same language without whatlang's fixed
//! 11,100 look-ups a text (6.4× faster on lines, 2× on pages; issue 16 session 18). Most pages of an English crawl never reach it: a text in
//! Latin script whose words are dense in English function words that no other Latin-script
//! language uses (`the`, `and`, `which`…) is English at the cost of one pass over its first
//! words ([`english_by_function_words`]; BENCHMARKS.md, "Issue 14: languages and ingest
//! cost (session 3)"). A text whose CJK characters outnumber its other words is Chinese,
//! Japanese or Korean by its characters ([`ScriptCounts`]), not by whatlang, which counts
//! letters and took Japanese manuals with English commands for Latin text.
//!
//! Also the language profile of a text (its lines identified one by one, [`Profile`]) and
//! the test whether two texts are in different languages through and through
//! ([`across_languages`]: a translation is not a copy), which the run driver applies to
//! every method's pairs (`detect::languages`).

/// The code stored for a text whose language is unknown.
pub const UNDETERMINED: &str = "und";

/// At most this many bytes of a text are read: a 5 MB text must not cost 5 MB of trigram
/// counting. Reading 4 KB instead cost the same CPU (whatlang's cost per text is mostly its
/// comparison with every profile of the script) and misidentified more short English doc
/// pages (fr 40 instead of 29 of 3,200 ci-dd pages).
pub const READ_BYTES: usize = 16 * 1024;

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
    if let Some(code) = by_cjk_script(head) {
        return code;
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

/// whatlang's language for `head`, computed by [`super::fast_lang`] (the same answer,
/// without whatlang's 11,100 look-ups a text).
fn by_trigrams(head: &str) -> &'static str {
    match super::fast_lang::detect_lang(head) {
        Some(lang) => short_code(lang),
        None => UNDETERMINED,
    }
}

/// The letters of `head` by script, as [`by_cjk_script`] weighs them: CJK ideographs, kana
/// and hangul one by one, every other script's letters by the words they make.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ScriptCounts {
    /// CJK ideographs (Chinese hanzi, Japanese kanji).
    pub han: usize,
    /// Hiragana and katakana.
    pub kana: usize,
    /// Hangul syllables and jamo.
    pub hangul: usize,
    /// Words (runs of letters) of any other script: Latin, Cyrillic, Arabic…
    pub other_words: usize,
}

impl ScriptCounts {
    /// Counts the letters of `text` (see the type).
    pub fn of(text: &str) -> ScriptCounts {
        let mut n = ScriptCounts::default();
        let mut in_word = false;
        for c in text.chars() {
            match c as u32 {
                0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => n.han += 1,
                0x3041..=0x309F | 0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9D => {
                    n.kana += 1
                }
                0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => n.hangul += 1,
                _ if c.is_alphabetic() => {
                    if !in_word {
                        n.other_words += 1;
                    }
                    in_word = true;
                    continue;
                }
                _ => {}
            }
            in_word = false;
        }
        n
    }

    /// CJK characters of all three kinds.
    pub fn cjk(&self) -> usize {
        self.han + self.kana + self.hangul
    }

    /// The CJK language these counts make when CJK characters are at least as many as the
    /// other scripts' words (and at least [`MIN_LETTERS`]): `ko` when hangul is most of them,
    /// `ja` when kana is at least [`KANA_PERCENT`] per cent of the ideographs and kana (whatlang's
    /// own rule between Mandarin and Japanese), else `zh`. `None`: not a CJK text.
    pub fn cjk_language(&self) -> Option<&'static str> {
        let cjk = self.cjk();
        if cjk < MIN_LETTERS || cjk < self.other_words {
            return None;
        }
        Some(if self.hangul * 2 >= cjk {
            "ko"
        } else if self.kana * 100 >= KANA_PERCENT * (self.han + self.kana) {
            "ja"
        } else {
            "zh"
        })
    }
}

/// Share (per cent) of kana among a text's ideographs and kana from which it is Japanese.
/// Japanese prose writes half or more of its characters in kana; Chinese writes none.
const KANA_PERCENT: usize = 5;

/// A text whose CJK characters are at least as many as its words in other scripts is
/// Chinese, Japanese or Korean by its characters ([`ScriptCounts::cjk_language`]). A CJK
/// character carries about a word (a Chinese word is one or two characters, a Japanese one
/// two or three with its particles), so this weighs the two scripts by what they say.
/// whatlang instead picks the script with the most *characters*, and counts hiragana,
/// katakana and ideographs as three scripts: a Japanese manual chapter of 2,800 kana and
/// 1,000 ideographs beside 500 English command names (3,000 Latin letters) was Latin to it,
/// and then English, French or Portuguese (debian-reference-ja on dd-lang: 22 of 45 pages
/// `en`, 13 `ja`; BENCHMARKS.md, "Issue 14 (session 10): languages").
fn by_cjk_script(head: &str) -> Option<&'static str> {
    ScriptCounts::of(head).cjk_language()
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

/// How much of a text is in each language: its blocks (lines) identified one by one, each
/// counted in units (words, a CJK character one unit), summed per language code. Lines
/// without a language (under [`MIN_LETTERS`] letters, symbols, `und`) count for none. Only
/// the first [`PROFILE_BYTES`] of the text are read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    units: Vec<(&'static str, usize)>,
}

/// At most this many bytes of a text are read by [`Profile::of`]: a manual chapter's first
/// 64 KB say which languages it holds; whatlang on every line of a 5 MB text would not.
const PROFILE_BYTES: usize = 64 * 1024;

impl Profile {
    /// The profile of `text` (see the type).
    pub fn of(text: &str) -> Profile {
        Profile::of_with(text, &LineMemo::default()).0
    }

    /// [`Profile::of`], the lines' languages read from `memo` where it has them; also the
    /// lines it did not have, for [`LineMemo::learn`] (the memo is read by many profiles
    /// made at once, and learns between them).
    pub fn of_with(text: &str, memo: &LineMemo) -> (Profile, Vec<(LineDigest, LineLanguage)>) {
        let mut units: Vec<(&'static str, usize)> = Vec::new();
        let mut learned = Vec::new();
        for line in prefix(text, PROFILE_BYTES).lines() {
            // A line too short to have a language is told apart at once; the rest cost
            // whatlang, once per distinct line with the memo.
            if !enough_letters(prefix(line, READ_BYTES)) {
                continue;
            }
            let digest = LineDigest::of(line);
            let LineLanguage { code, weight } = match memo.lines.get(&digest) {
                Some(&known) => known,
                None => {
                    let code = identify(line);
                    let weight = if code == UNDETERMINED {
                        0
                    } else {
                        let n = ScriptCounts::of(line);
                        n.cjk() + n.other_words
                    };
                    let known = LineLanguage { code, weight };
                    learned.push((digest, known));
                    known
                }
            };
            if code == UNDETERMINED {
                continue;
            }
            match units.iter_mut().find(|(c, _)| *c == code) {
                Some((_, u)) => *u += weight,
                None => units.push((code, weight)),
            }
        }
        (Profile { units }, learned)
    }

    /// Every language of the text with its units, in the order first met.
    pub fn languages(&self) -> &[(&'static str, usize)] {
        &self.units
    }

    /// The units of language `code` in the text.
    pub fn units(&self, code: &str) -> usize {
        self.units
            .iter()
            .find(|(c, _)| *c == code)
            .map_or(0, |(_, u)| *u)
    }
}

/// A line of text named by the first 128 bits of its SHA-1: lines equal in their bytes
/// have one digest, and two different lines of one collection none in common (crawled text
/// is hostile: a 64-bit non-cryptographic hash can be made to collide on purpose).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LineDigest(u128);

impl LineDigest {
    fn of(line: &str) -> LineDigest {
        use sha1::{Digest, Sha1};
        let full = Sha1::digest(line.as_bytes());
        let mut first = [0u8; 16];
        first.copy_from_slice(&full[..16]);
        LineDigest(u128::from_le_bytes(first))
    }
}

/// What [`Profile::of`] makes of one line: its language ([`identify`]) and its units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineLanguage {
    code: &'static str,
    weight: usize,
}

/// Lines' languages by digest, shared by the profiles of one collection's texts: the texts
/// profiled are those of pairs, which share most of their lines (a manual's releases, a
/// site's template), so each line costs whatlang once instead of once per text. At a
/// million pages identifying the profiled texts' lines was 31% of `detect`'s CPU
/// (BENCHMARKS.md, issue 16 session 17). A profile is the same with the memo as without.
#[derive(Debug, Default)]
pub struct LineMemo {
    lines: rustc_hash::FxHashMap<LineDigest, LineLanguage>,
}

/// The memo learns no more lines past this many (~48 bytes a line in the map: ~200 MB);
/// the lines it has stay.
const MEMO_MAX_LINES: usize = 4_000_000;

impl LineMemo {
    /// Remembers lines [`Profile::of_with`] identified, up to [`MEMO_MAX_LINES`].
    pub fn learn(&mut self, learned: impl IntoIterator<Item = (LineDigest, LineLanguage)>) {
        for (digest, language) in learned {
            if self.lines.len() >= MEMO_MAX_LINES {
                return;
            }
            self.lines.insert(digest, language);
        }
    }

    /// Lines remembered.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// A text holds its language "surely" when at least this many units of it are in lines of
/// that language: a caption, a menu or a two-line stub says too little.
pub const ACROSS_MIN_UNITS: usize = 50;

/// A text "lacks" a language when it holds less than this share of the other text's units
/// of that language.
pub const ACROSS_SHARE: f64 = 0.5;

/// Whether two texts identified in different languages (`a_lang`, `b_lang`; neither `und`)
/// are in different languages through and through, so that neither is a copy of the other
/// (a translation and its original, an edition's translated page and another edition's
/// untranslated fallback): each holds its own language surely ([`ACROSS_MIN_UNITS`]) and
/// lacks the other's ([`ACROSS_SHARE`]), and they share no language (no language both hold
/// surely, each at least [`ACROSS_SHARE`] of the other's units of it). Texts that share a
/// language are not across, however identified: an English wire story in a German site's
/// template (identified `de` for its teasers) holds the English lines of its English copy,
/// and of its copy in a Czech site's template (identified `cs`); a Chinese story in Yahoo's
/// English template the Chinese lines of its Chinese copy. So are two editions' pages that
/// left the same half untranslated. A short page says too little to part it.
pub fn across_languages(a_lang: &str, a: &Profile, b_lang: &str, b: &Profile) -> bool {
    if a_lang == b_lang || a_lang == UNDETERMINED || b_lang == UNDETERMINED {
        return false;
    }
    let holds_only = |own: &str, this: &Profile, other: &Profile| {
        let mine = this.units(own);
        mine >= ACROSS_MIN_UNITS && (other.units(own) as f64) < ACROSS_SHARE * mine as f64
    };
    let share = a.languages().iter().any(|&(code, ua)| {
        let ub = b.units(code);
        ua.min(ub) >= ACROSS_MIN_UNITS && ua.min(ub) as f64 >= ACROSS_SHARE * ua.max(ub) as f64
    });
    holds_only(a_lang, a, b) && holds_only(b_lang, b, a) && !share
}

/// The longest prefix of `text` of at most `max` bytes that ends on a char boundary.
pub fn prefix(text: &str, max: usize) -> &str {
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

    /// A manual section's command lines and their output, left in English by every
    /// translation (written for these tests).
    const COMMANDS: &str = "# apt-get install openssh-server\n\
        Reading package lists... Done\n\
        Building dependency tree... Done\n\
        The following additional packages will be installed: libwrap0 openssh-sftp-server ucf\n\
        The following NEW packages will be installed: libwrap0 openssh-server ucf\n\
        0 upgraded, 3 newly installed, 0 to remove and 3 not upgraded.\n\
        Need to get 1,284 kB of archives.\n\
        After this operation, 6,213 kB of additional disk space will be used.\n\
        # apt-cache policy openssh-server\n\
        openssh-server: Installed: (none) Candidate: 1:9.2p1-2 Version table:\n\
        # dpkg -S /usr/sbin/sshd\n\
        openssh-server: /usr/sbin/sshd\n\
        # systemctl status ssh.service\n\
        ssh.service - OpenBSD Secure Shell server, Loaded: loaded, Active: active (running)\n";

    const JAPANESE: &str = "パッケージ管理システムは、システムにインストールされたすべてのパッケージと、\
        各パッケージが所有するファイル、そしてそれらの間の依存関係を記録しています。\n\
        パッケージをインストールすると、ツールはアーカイブからそれをダウンロードし、署名を確認してから展開します。\n";

    const CHINESE: &str = "软件包管理系统记录系统上安装的每一个软件包、每个软件包拥有的文件以及它们之间的依赖关系。\n\
        安装软件包时，工具会从仓库下载它，检查它的签名，然后解包。\n";

    const ENGLISH: &str = "The package management system keeps track of every package installed \
        on the system, of the files each package owns and of the dependencies between them.\n\
        When you install a package, the tools download it from the archive, check its \
        signature and unpack it. Most of the time you will use the high-level tools, which \
        resolve dependencies for you and download what is needed.\n";

    const CATALAN: &str = "El sistema de gestió de paquets registra tots els paquets instal·lats \
        al sistema, els fitxers que pertanyen a cada paquet i les dependències entre ells.\n\
        Quan instal·leu un paquet, les eines el descarreguen de l'arxiu, en comproven la \
        signatura i el desempaqueten. La major part del temps fareu servir les eines d'alt \
        nivell, que resolen les dependències per vosaltres i descarreguen tot el que cal.\n";

    #[test]
    fn a_japanese_or_chinese_page_with_english_command_lines_is_japanese_or_chinese() {
        // A chapter whose prose is Japanese with the commands and their output in English.
        let ja = format!("{JAPANESE}{COMMANDS}{JAPANESE}{COMMANDS}");
        // whatlang alone counts letters, and hiragana, katakana and ideographs as three
        // scripts: the English letters outnumber each, and the page is Latin to it.
        assert_ne!(identify_by_trigrams(&ja), "ja");
        assert_eq!(identify(&ja), "ja");
        let zh = format!("{CHINESE}{COMMANDS}{CHINESE}{CHINESE}");
        assert_eq!(identify(&zh), "zh");
        // An English page quoting a few characters stays English.
        let en = format!("{ENGLISH}{COMMANDS} The Japanese edition is called パッケージ管理.");
        assert_eq!(identify(&en), "en");
        let counts = ScriptCounts::of("日本語のテキスト and two words, 한국어");
        assert_eq!(
            (counts.han, counts.kana, counts.hangul, counts.other_words),
            (3, 5, 3, 3)
        );
    }

    #[test]
    fn a_translation_and_its_original_are_across_languages_and_copies_in_templates_are_not() {
        let en = Profile::of(&format!("{ENGLISH}{ENGLISH}{COMMANDS}"));
        let ca = Profile::of(&format!("{CATALAN}{CATALAN}{COMMANDS}"));
        let ja = Profile::of(&format!("{JAPANESE}{JAPANESE}{COMMANDS}"));
        assert!(across_languages("ca", &ca, "en", &en));
        assert!(across_languages("en", &en, "ca", &ca));
        assert!(across_languages("ja", &ja, "en", &en));
        // Two translations that left the same command output in English share those
        // English lines: not parted (the rule keeps any pair that shares a language).
        assert!(!across_languages("ja", &ja, "ca", &ca));
        // The same language, or a language not known, is never across.
        assert!(!across_languages("en", &en, "en", &en));
        assert!(!across_languages("und", &ca, "en", &en));
        // An English story in a Catalan site's template (identified `ca` for its long
        // teasers) holds the English of its English copy: a copy, not a translation. So is
        // its copy in a Japanese site's template.
        let in_catalan_template = Profile::of(&format!("{CATALAN}{ENGLISH}{ENGLISH}"));
        let in_japanese_template = Profile::of(&format!("{JAPANESE}{ENGLISH}{ENGLISH}"));
        assert!(!across_languages("ca", &in_catalan_template, "en", &en));
        assert!(!across_languages(
            "ca",
            &in_catalan_template,
            "ja",
            &in_japanese_template
        ));
        // A short page says too little to part it from anything.
        let stub = Profile::of("El sistema de gestió de paquets registra tots els paquets.");
        assert!(!across_languages("ca", &stub, "en", &en));
    }

    #[test]
    fn a_profile_made_with_the_line_memo_is_the_profile_made_without() {
        let texts = [
            format!("{ENGLISH}{ENGLISH}{COMMANDS}"),
            format!("{CATALAN}{CATALAN}{COMMANDS}"),
            format!("{JAPANESE}{ENGLISH}{COMMANDS}\nHome | About\n{CHINESE}"),
            format!("{CATALAN}{ENGLISH}"),
        ];
        let mut memo = LineMemo::default();
        for round in 0..2 {
            for text in &texts {
                let (profile, learned) = Profile::of_with(text, &memo);
                assert_eq!(profile, Profile::of(text));
                // The first round learns every line with letters once, the second none.
                assert_eq!(learned.is_empty(), round == 1 || text == &texts[3]);
                memo.learn(learned);
            }
        }
        // One entry per distinct line with enough letters ("Home | About" has too few).
        let distinct: std::collections::BTreeSet<&str> = texts
            .iter()
            .flat_map(|t| t.lines())
            .filter(|l| enough_letters(l))
            .collect();
        assert!(!distinct.contains("Home | About"));
        assert_eq!(memo.len(), distinct.len());
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
