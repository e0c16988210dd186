//! Decoders (HF tokenizers' `decoders`): tokens back to text. Each runs HF's
//! `decode_chain` (tokens in, tokens out, so a `Sequence` feeds one into the
//! next); `decode` joins the last chain with nothing between, as HF does.

mod strip;
mod wordpiece;

use crate::pre_tokenizers::byte_level::char_byte;
use crate::pre_tokenizers::Metaspace;
pub use strip::strip;
pub use wordpiece::cleanup;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoder {
    ByteLevel,
    WordPiece { prefix: String, cleanup: bool },
    Metaspace(Metaspace),
    /// HF's `BPEDecoder`.
    Bpe { suffix: String },
    ByteFallback,
    Fuse,
    Strip { content: char, start: usize, stop: usize },
    /// `Replace` with a string pattern.
    Replace { pattern: String, content: String },
    /// `Replace` with a regex pattern (the normalizer's subset and matching, per token).
    ReplaceRegex(RegexReplace),
    Ctc { pad_token: String, word_delimiter_token: String, cleanup: bool },
    Sequence(Vec<Decoder>),
}

/// A regex `Replace` decoder: HF runs its Replace normalizer on each token.
#[derive(Clone, Debug)]
pub struct RegexReplace {
    pub pattern: String,
    replace: crate::normalizers::Replace,
}

impl RegexReplace {
    /// `Err` says why the pattern is not supported (the normalizer's rules).
    pub fn new(pattern: &str, content: &str) -> Result<RegexReplace, String> {
        Ok(RegexReplace { pattern: pattern.to_string(), replace: crate::normalizers::Replace::regex(pattern, content)? })
    }

    fn apply(&self, token: &str) -> String {
        // the normalizer's text without its spans (a decoder has no offsets)
        self.replace.replace_text(token).into_owned()
    }
}

impl PartialEq for RegexReplace {
    fn eq(&self, other: &Self) -> bool {
        (&self.pattern, &self.replace.content) == (&other.pattern, &other.replace.content)
    }
}

impl Eq for RegexReplace {}

impl Decoder {
    pub fn decode(&self, tokens: &[String]) -> String {
        self.decode_chain(tokens.to_vec()).concat()
    }

    pub fn decode_chain(&self, tokens: Vec<String>) -> Vec<String> {
        match self {
            Decoder::ByteLevel => {
                // A token with any char outside the byte table is taken as its UTF-8 (as HF).
                let mut bytes = Vec::new();
                for t in &tokens {
                    match t.chars().map(char_byte).collect::<Option<Vec<u8>>>() {
                        Some(b) => bytes.extend(b),
                        None => bytes.extend_from_slice(t.as_bytes()),
                    }
                }
                vec![String::from_utf8_lossy(&bytes).into_owned()]
            }
            Decoder::WordPiece { prefix, cleanup } => wordpiece::decode_chain(tokens, prefix, *cleanup),
            Decoder::Metaspace(m) => m.decode_chain(tokens),
            Decoder::Bpe { suffix } => {
                let last = tokens.len().saturating_sub(1);
                tokens.into_iter().enumerate().map(|(i, t)| t.replace(suffix, if i == last { "" } else { " " })).collect()
            }
            Decoder::ByteFallback => wordpiece::byte_fallback(tokens),
            Decoder::Fuse => vec![tokens.concat()],
            Decoder::Strip { content, start, stop } => tokens.iter().map(|t| strip(t, *content, *start, *stop)).collect(),
            Decoder::Replace { pattern, content } => tokens.iter().map(|t| t.replace(pattern.as_str(), content)).collect(),
            Decoder::ReplaceRegex(r) => tokens.iter().map(|t| r.apply(t)).collect(),
            Decoder::Ctc { pad_token, word_delimiter_token, cleanup } => {
                wordpiece::ctc(tokens, pad_token, word_delimiter_token, *cleanup)
            }
            Decoder::Sequence(ds) => ds.iter().fold(tokens, |t, d| d.decode_chain(t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn regex_replace_runs_per_token() {
        // Measured on tokenizers 0.23.3: decoders.Replace(Regex("▁+"), " ").decode(...)
        let d = Decoder::ReplaceRegex(RegexReplace::new("▁+", " ").unwrap());
        assert_eq!(d.decode(&strings(&["▁▁a", "b▁", "▁", "c"])), " ab  c");
        assert!(RegexReplace::new(r"\bx", "").is_err());
    }

    #[test]
    fn byte_level_round_trip() {
        let toks = strings(&["ĠHello", "Ã", "©", "<s>"]);
        assert_eq!(Decoder::ByteLevel.decode(&toks), " Helloé<s>");
    }

    #[test]
    fn bpe_suffix_and_sequences() {
        let d = Decoder::Bpe { suffix: "</w>".into() };
        assert_eq!(d.decode(&strings(&["a</w>", "b", "c</w>"])), "a bc");
        assert_eq!(d.decode(&[]), "");
        let seq = Decoder::Sequence(vec![Decoder::Replace { pattern: "▁".into(), content: " ".into() }, Decoder::Fuse,
                                          Decoder::Strip { content: ' ', start: 1, stop: 0 }]);
        assert_eq!(seq.decode_chain(strings(&["▁a", "▁b"])), strings(&["a b"]));
    }
}
