//! A decode chain's tokens: their texts one after another in one string and
//! where each ends. A list of ids can be as large as memory, so both buffers
//! grow fallibly (a `MemoryError`, never an abort), and a chain stage makes
//! two allocations instead of one string per token.

use crate::room::{ensure_room, ensure_text_room};
use crate::Result;
use std::borrow::Cow;

const WHAT: &str = "decoded text";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    text: String,
    ends: Vec<usize>,
}

impl Tokens {
    /// Tokens given as strings (a Python list, tests).
    pub fn from_strs<S: AsRef<str>>(tokens: &[S]) -> Result<Tokens> {
        let mut out = Tokens::default();
        for t in tokens {
            out.push(t.as_ref())?;
        }
        Ok(out)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(self.ends.iter().copied()).map(|(a, b)| &self.text[a..b])
    }

    /// One token holding all the text (the Fuse decoder).
    pub fn fused(&self) -> Result<Tokens> {
        let mut out = Tokens::default();
        out.push(&self.text)?;
        Ok(out)
    }

    /// A copy, made fallibly.
    pub fn try_clone(&self) -> Result<Tokens> {
        let mut out = Tokens::default();
        ensure_text_room(&mut out.text, self.text.len(), WHAT)?;
        ensure_room(&mut out.ends, self.ends.len(), WHAT)?;
        out.text.push_str(&self.text);
        out.ends.extend_from_slice(&self.ends);
        Ok(out)
    }

    /// All the tokens' text, joined with nothing between (HF's `decode`).
    pub fn into_text(self) -> String {
        self.text
    }

    /// Appends a whole token.
    pub fn push(&mut self, token: &str) -> Result<()> {
        self.push_str(token)?;
        self.end()
    }

    /// Appends to the token being made (ended by [`Tokens::end`]).
    #[inline]
    pub fn push_str(&mut self, s: &str) -> Result<()> {
        ensure_text_room(&mut self.text, s.len(), WHAT)?;
        self.text.push_str(s);
        Ok(())
    }

    #[inline]
    pub fn push_char(&mut self, c: char) -> Result<()> {
        ensure_text_room(&mut self.text, c.len_utf8(), WHAT)?;
        self.text.push(c);
        Ok(())
    }

    /// `s` with every `pattern` replaced by `with` (as `str::replace`: an
    /// empty pattern matches at every char boundary), appended.
    pub fn push_replaced(&mut self, s: &str, pattern: &str, with: &str) -> Result<()> {
        self.push_spliced(s, s.match_indices(pattern).map(|(at, m)| (at, at + m.len())), with)
    }

    /// `s` with each of the byte ranges `matches` (in order, not overlapping) replaced by `with`, appended.
    pub fn push_spliced(&mut self, s: &str, matches: impl Iterator<Item = (usize, usize)>, with: &str) -> Result<()> {
        let mut last = 0;
        for (start, end) in matches {
            self.push_str(&s[last..start])?;
            self.push_str(with)?;
            last = end;
        }
        self.push_str(&s[last..])
    }

    /// Ends the token being made (it may be empty).
    pub fn end(&mut self) -> Result<()> {
        ensure_room(&mut self.ends, 1, WHAT)?;
        self.ends.push(self.text.len());
        Ok(())
    }

    /// The text of the token being made (since the last [`Tokens::end`]).
    pub fn open_token(&self) -> &str {
        &self.text[self.ends.last().copied().unwrap_or(0)..]
    }

    /// Drops the token being made.
    pub fn drop_open_token(&mut self) {
        self.text.truncate(self.ends.last().copied().unwrap_or(0));
    }

    /// The token being made replaced by what `edit` makes of it, where that differs (an owned text).
    pub fn edit_open_token(&mut self, edit: impl FnOnce(&str) -> Result<Cow<'_, str>>) -> Result<()> {
        let edited = match edit(self.open_token())? {
            Cow::Owned(t) => Some(t),
            Cow::Borrowed(_) => None,
        };
        if let Some(t) = edited {
            self.drop_open_token();
            self.push_str(&t)?;
        }
        Ok(())
    }
}

/// `s` with every `pattern` replaced by `with`, made fallibly; borrowed when
/// nothing matches.
pub fn replaced<'s>(s: &'s str, pattern: &str, with: &str) -> Result<Cow<'s, str>> {
    if !pattern.is_empty() && !s.contains(pattern) {
        return Ok(Cow::Borrowed(s));
    }
    let mut out = Tokens::default();
    out.push_replaced(s, pattern, with)?;
    Ok(Cow::Owned(out.text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_their_bounds_and_join_with_nothing() {
        let mut t = Tokens::from_strs(&["ab", "", "é"]).unwrap();
        t.push_str("x").unwrap();
        assert_eq!(t.open_token(), "x");
        t.drop_open_token();
        t.push_char('y').unwrap();
        t.end().unwrap();
        assert_eq!(t.iter().collect::<Vec<_>>(), ["ab", "", "é", "y"]);
        assert_eq!(t.len(), 4);
        assert_eq!(t.into_text(), "abéy");
        assert!(Tokens::default().is_empty());
    }

    #[test]
    fn replaced_is_str_replace() {
        for (s, p, w) in [("a.b..c", ".", "--"), ("", "", "x"), ("aé", "", "-"), ("abab", "ab", ""), ("xyz", "q", "r"), ("aaa", "aa", "b")] {
            assert_eq!(replaced(s, p, w).unwrap(), s.replace(p, w), "{s:?} {p:?} {w:?}");
        }
    }
}
