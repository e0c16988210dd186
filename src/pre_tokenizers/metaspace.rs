//! HF tokenizers' Metaspace pre-tokenizer and decoder (SentencePiece's `▁`):
//! every space becomes the replacement char, one is put in front of a piece
//! that does not start with it (`always`; `first`: only the piece that starts
//! the original text; `never`), and with `split` each replacement char starts
//! a new word. Decoding turns replacement chars back into spaces, dropping
//! those of the first token unless the scheme is `never`.

use crate::decoders::Tokens;
use crate::normalized_string::NormalizedString;
use crate::room::try_push;
use crate::Result;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrependScheme {
    First,
    Never,
    Always,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metaspace {
    pub replacement: char,
    pub prepend_scheme: PrependScheme,
    pub split: bool,
}

impl Metaspace {
    pub fn pre_tokenize(&self, mut s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
        let r = self.replacement;
        s.chars.iter_mut().filter(|c| **c == ' ').for_each(|c| *c = r);
        let prepend = match self.prepend_scheme {
            PrependScheme::Always => true,
            // HF asks whether the piece starts at offset 0 of the original text.
            PrependScheme::First => s.origin == 0,
            PrependScheme::Never => false,
        };
        if prepend && s.chars.first() != Some(&r) {
            s.prepend(r)?;
        }
        if !self.split {
            return try_push(out, s, "pre-tokenized text");
        }
        // HF's split on the replacement char, MergedWithNext: each one starts a word.
        let mut start = 0;
        for i in 1..s.len() {
            if s.chars[i] == r {
                try_push(out, s.slice(start..i)?, "pre-tokenized text")?;
                start = i;
            }
        }
        if start < s.len() {
            try_push(out, s.slice(start..s.len())?, "pre-tokenized text")?;
        }
        Ok(())
    }

    pub fn decode_chain(&self, tokens: &Tokens) -> Result<Tokens> {
        let drop_first = self.prepend_scheme != PrependScheme::Never;
        let mut out = Tokens::default();
        for (i, t) in tokens.iter().enumerate() {
            for c in t.chars() {
                match c == self.replacement {
                    true if i == 0 && drop_first => {}
                    true => out.push_char(' ')?,
                    false => out.push_char(c)?,
                }
            }
            out.end()?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(m: Metaspace, text: &str, origin: usize) -> Vec<(String, Vec<(usize, usize)>)> {
        let mut out = Vec::new();
        m.pre_tokenize(NormalizedString::new(text, origin).unwrap(), &mut out).unwrap();
        out.into_iter().map(|w| (w.text().unwrap(), w.spans)).collect()
    }

    #[test]
    fn prepends_and_splits_before_each_replacement() {
        let m = Metaspace { replacement: '▁', prepend_scheme: PrependScheme::Always, split: true };
        let got = words(m, "a  b", 0);
        assert_eq!(got, vec![("▁a".into(), vec![(0, 1), (0, 1)]), ("▁".into(), vec![(1, 2)]), ("▁b".into(), vec![(2, 3), (3, 4)])]);
        let first = Metaspace { prepend_scheme: PrependScheme::First, ..m };
        assert_eq!(words(first, "b", 3), vec![("b".to_string(), vec![(3, 4)])]);
        let whole = Metaspace { split: false, prepend_scheme: PrependScheme::Never, ..m };
        assert_eq!(words(whole, "a b", 0), vec![("a▁b".to_string(), vec![(0, 1), (1, 2), (2, 3)])]);
    }

    #[test]
    fn decodes_spaces() {
        let m = Metaspace { replacement: '▁', prepend_scheme: PrependScheme::Always, split: true };
        let toks = Tokens::from_strs(&["▁a", "▁", "b▁"]).unwrap();
        assert_eq!(m.decode_chain(&toks).unwrap().into_text(), "a b ");
        let never = Metaspace { prepend_scheme: PrependScheme::Never, ..m };
        assert_eq!(never.decode_chain(&toks).unwrap().into_text(), " a b ");
    }
}
