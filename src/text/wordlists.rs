//! Word lists (stopwords, antecedents, lexicons) loaded from `assets/` or a user file.
//! One word per line, `#` starts a comment, words are normalized like tokens.

use rustc_hash::FxHashSet;
use std::path::Path;

/// A set of normalized words.
#[derive(Debug, Clone, Default)]
pub struct WordList {
    words: FxHashSet<String>,
    /// A 512-bit filter of the words' (length, first byte, last byte): a word whose bit is
    /// clear is not in the list, found without hashing it. Most tokens of a text are not
    /// stopwords or antecedents; the set's look-ups were 3.6% of `detect` on dd6k (issue 16,
    /// session 15).
    filter: [u64; 8],
}

/// The bit of `word` in [`WordList`]'s filter.
fn filter_bit(word: &str) -> usize {
    let b = word.as_bytes();
    let (first, last) = (b.first().copied(), b.last().copied());
    let mix = (b.len() as u32).wrapping_mul(0x9E37_79B9)
        ^ u32::from(first.unwrap_or(0)).wrapping_mul(0x85EB_CA6B)
        ^ u32::from(last.unwrap_or(0)).wrapping_mul(0xC2B2_AE35);
    (mix >> 23) as usize
}

impl WordList {
    /// Parses a list: one word per line, blank lines and `#` comments ignored.
    pub fn parse(text: &str) -> Self {
        let words = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .map(|w| w.to_lowercase().replace('\u{2019}', "'"))
            .collect();
        Self::from_words(words)
    }

    fn from_words(words: FxHashSet<String>) -> Self {
        let mut list = WordList {
            words: FxHashSet::default(),
            filter: [0; 8],
        };
        list.extend(words);
        list
    }

    fn extend(&mut self, words: impl IntoIterator<Item = String>) {
        for w in words {
            let bit = filter_bit(&w);
            self.filter[bit / 64] |= 1 << (bit % 64);
            self.words.insert(w);
        }
    }

    /// Parses a list whose words are grouped by language: a line `# lang: CODE [CODE...]`
    /// starts the words of those languages (the bundled antecedents). Words before the first
    /// such line belong to no language. Returns each language's list.
    pub fn parse_by_language(text: &str) -> std::collections::BTreeMap<String, WordList> {
        let mut out: std::collections::BTreeMap<String, WordList> = Default::default();
        let mut current: Vec<String> = Vec::new();
        let mut section = String::new();
        let mut flush = |langs: &[String], section: &str| {
            let list = Self::parse(section);
            for l in langs {
                out.entry(l.clone())
                    .or_default()
                    .extend(list.words.iter().cloned());
            }
        };
        for line in text.lines() {
            if let Some(codes) = line.trim().strip_prefix("# lang:") {
                flush(&current, &section);
                section.clear();
                current = codes
                    .split('(')
                    .next()
                    .unwrap_or("")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect();
            } else {
                section.push_str(line);
                section.push('\n');
            }
        }
        flush(&current, &section);
        out
    }

    /// Reads a list from a file, naming the file in the error.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read word list {}: {e}", path.display()))?;
        Ok(Self::parse(&text))
    }

    /// The SMART-like stopword list bundled in `assets/stopwords.txt`.
    pub fn default_stopwords() -> Self {
        Self::parse(include_str!("../../assets/stopwords.txt"))
    }

    pub fn contains(&self, word: &str) -> bool {
        let bit = filter_bit(word);
        self.filter[bit / 64] >> (bit % 64) & 1 == 1 && self.words.contains(word)
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_skips_comments_and_blank_lines() {
        let l = WordList::parse("# header\nThe\n\n  a  # article\ndon’t\n");
        assert_eq!(l.len(), 3);
        assert!(l.contains("the") && l.contains("a") && l.contains("don't"));
    }

    #[test]
    fn lists_by_language_follow_their_headers() {
        let by = WordList::parse_by_language(
            "# intro\nnone\n# lang: en\nThe\n# lang: zh ja (note)\n的\n# lang: en\nis\n",
        );
        assert_eq!(by.keys().collect::<Vec<_>>(), ["en", "ja", "zh"]);
        assert!(by["en"].contains("the") && by["en"].contains("is"));
        assert_eq!(by["en"].len(), 2);
        assert!(by["zh"].contains("的") && by["ja"].contains("的"));
        assert!(!by.values().any(|l| l.contains("none")));
    }

    proptest::proptest! {
        /// The filter never hides a word of the list: `contains` is set membership.
        #[test]
        fn the_filter_only_skips_words_not_in_the_list(
            word in "[a-z']{0,12}|\\PC{0,6}",
            listed in proptest::sample::select(WordList::default_stopwords().iter().map(str::to_owned).collect::<Vec<_>>()),
        ) {
            let l = WordList::default_stopwords();
            proptest::prop_assert!(l.contains(&listed));
            proptest::prop_assert_eq!(l.contains(&word), l.words.contains(&word));
        }
    }

    #[test]
    fn default_stopwords_cover_common_words() {
        let l = WordList::default_stopwords();
        for w in ["the", "and", "of", "is", "don't"] {
            assert!(l.contains(w), "{w}");
        }
    }
}
