//! Word lists (stopwords, antecedents, lexicons) loaded from `assets/` or a user file.
//! One word per line, `#` starts a comment, words are normalized like tokens.

use rustc_hash::FxHashSet;
use std::path::Path;

/// A set of normalized words.
#[derive(Debug, Clone, Default)]
pub struct WordList {
    words: FxHashSet<String>,
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
        WordList { words }
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
        self.words.contains(word)
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
    fn default_stopwords_cover_common_words() {
        let l = WordList::default_stopwords();
        for w in ["the", "and", "of", "is", "don't"] {
            assert!(l.contains(w), "{w}");
        }
    }
}
