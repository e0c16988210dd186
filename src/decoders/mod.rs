//! Decoders (HF tokenizers' `decoders`): tokens back to text. Each runs HF's
//! `decode_chain` (tokens in, tokens out, so a `Sequence` feeds one into the
//! next); `decode` joins the last chain with nothing between, as HF does.

mod strip;
mod tokens;
mod wordpiece;

use crate::pre_tokenizers::byte_level::char_byte;
use crate::pre_tokenizers::Metaspace;
use crate::room::make_room;
use crate::Result;
pub use strip::strip;
pub use tokens::Tokens;
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
    pub fn new(pattern: &str, content: &str) -> std::result::Result<RegexReplace, String> {
        Ok(RegexReplace { pattern: pattern.to_string(), replace: crate::normalizers::Replace::regex(pattern, content)? })
    }

    /// The normalizer's text without its spans (a decoder has no offsets), appended.
    fn push_applied(&self, token: &str, out: &mut Tokens) -> Result<()> {
        out.push_spliced(token, self.replace.matches(token), &self.replace.content)
    }
}

impl PartialEq for RegexReplace {
    fn eq(&self, other: &Self) -> bool {
        (&self.pattern, &self.replace.content) == (&other.pattern, &other.replace.content)
    }
}

impl Eq for RegexReplace {}

impl Decoder {
    /// HF's `decode`: the chain's last tokens joined with nothing between.
    pub fn decode(&self, tokens: &Tokens) -> Result<String> {
        Ok(self.decode_chain(tokens)?.into_text())
    }

    /// HF's `decode_chain`, every buffer grown fallibly.
    pub fn decode_chain(&self, tokens: &Tokens) -> Result<Tokens> {
        let each = |f: &dyn Fn(&str, &mut Tokens) -> Result<()>| -> Result<Tokens> {
            let mut out = Tokens::default();
            for t in tokens.iter() {
                f(t, &mut out)?;
                out.end()?;
            }
            Ok(out)
        };
        match self {
            Decoder::ByteLevel => {
                // A token with any char outside the byte table is taken as its UTF-8 (as HF);
                // either way a token gives at most its own bytes.
                let mut bytes = Vec::new();
                make_room(&mut bytes, tokens.iter().map(str::len).sum(), "decoded text")?;
                for t in tokens.iter() {
                    let at = bytes.len();
                    if t.chars().any(|c| char_byte(c).map(|b| bytes.push(b)).is_none()) {
                        bytes.truncate(at);
                        bytes.extend_from_slice(t.as_bytes());
                    }
                }
                // as `String::from_utf8_lossy`: one U+FFFD per invalid sequence
                let mut out = Tokens::default();
                for chunk in bytes.utf8_chunks() {
                    out.push_str(chunk.valid())?;
                    if !chunk.invalid().is_empty() {
                        out.push_char('\u{FFFD}')?;
                    }
                }
                out.end()?;
                Ok(out)
            }
            Decoder::WordPiece { prefix, cleanup } => wordpiece::decode_chain(tokens, prefix, *cleanup),
            Decoder::Metaspace(m) => m.decode_chain(tokens),
            Decoder::Bpe { suffix } => {
                let last = tokens.len().saturating_sub(1);
                let mut out = Tokens::default();
                for (i, t) in tokens.iter().enumerate() {
                    out.push_replaced(t, suffix, if i == last { "" } else { " " })?;
                    out.end()?;
                }
                Ok(out)
            }
            Decoder::ByteFallback => wordpiece::byte_fallback(tokens),
            Decoder::Fuse => tokens.fused(),
            Decoder::Strip { content, start, stop } => each(&|t, out| out.push_str(strip(t, *content, *start, *stop))),
            Decoder::Replace { pattern, content } => each(&|t, out| out.push_replaced(t, pattern, content)),
            Decoder::ReplaceRegex(r) => each(&|t, out| r.push_applied(t, out)),
            Decoder::Ctc { pad_token, word_delimiter_token, cleanup } => {
                wordpiece::ctc(tokens, pad_token, word_delimiter_token, *cleanup)
            }
            Decoder::Sequence(ds) => {
                let mut current: Option<Tokens> = None;
                for d in ds {
                    current = Some(d.decode_chain(current.as_ref().unwrap_or(tokens))?);
                }
                match current {
                    Some(t) => Ok(t),
                    None => tokens.try_clone(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(t: &[&str]) -> Tokens {
        Tokens::from_strs(t).unwrap()
    }

    #[test]
    fn regex_replace_runs_per_token() {
        // Measured on tokenizers 0.23.3: decoders.Replace(Regex("▁+"), " ").decode(...)
        let d = Decoder::ReplaceRegex(RegexReplace::new("▁+", " ").unwrap());
        assert_eq!(d.decode(&strings(&["▁▁a", "b▁", "▁", "c"])).unwrap(), " ab  c");
        assert!(RegexReplace::new(r"\bx", "").is_err());
    }

    #[test]
    fn byte_level_round_trip() {
        let toks = strings(&["ĠHello", "Ã", "©", "<s>"]);
        assert_eq!(Decoder::ByteLevel.decode(&toks).unwrap(), " Helloé<s>");
    }

    #[test]
    fn bpe_suffix_and_sequences() {
        let d = Decoder::Bpe { suffix: "</w>".into() };
        assert_eq!(d.decode(&strings(&["a</w>", "b", "c</w>"])).unwrap(), "a bc");
        assert_eq!(d.decode(&Tokens::default()).unwrap(), "");
        let seq = Decoder::Sequence(vec![Decoder::Replace { pattern: "▁".into(), content: " ".into() }, Decoder::Fuse,
                                          Decoder::Strip { content: ' ', start: 1, stop: 0 }]);
        assert_eq!(seq.decode_chain(&strings(&["▁a", "▁b"])).unwrap(), strings(&["a b"]));
    }
}
