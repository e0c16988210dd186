//! Vocabulary: `vocab.txt` loading exactly as each reference's `load_vocab`.

use crate::fxhash::{hash_bytes, FxHashMap};
use crate::normalizer::Reference;
use crate::unicode::is_python_space;
use crate::{Error, Result};
use std::path::Path;

/// Tokens in the order a Python `OrderedDict` would hold them, with their ids.
/// Tokens are generalized UTF-8 bytes (valid UTF-8 unless built from Python
/// strings holding lone surrogates).
#[derive(Clone, Debug, Default)]
pub struct Vocab {
    entries: Vec<(Box<[u8]>, u32)>,
    by_token: TokenIndex, // token -> index in `entries`
    by_id: ById,          // id -> index in `entries`
}

/// Id -> entry index: a plain array when ids are line numbers (dense, the
/// usual case), a hash map for arbitrary ids given from Python.
#[derive(Clone, Debug)]
enum ById {
    Dense(Vec<u32>), // EMPTY where no entry has the id
    Sparse(FxHashMap<u32, u32>),
}

impl Default for ById {
    fn default() -> Self {
        ById::Dense(Vec::new())
    }
}

/// Token -> entry index, open addressing over entry indexes: the keys are the
/// entries' own bytes, so loading a vocabulary allocates each token once.
#[derive(Clone, Debug, Default)]
struct TokenIndex {
    slots: Vec<u32>, // entry index, or EMPTY
    len: usize,
}

const EMPTY: u32 = u32::MAX;

impl TokenIndex {
    fn find(&self, entries: &[(Box<[u8]>, u32)], token: &[u8]) -> std::result::Result<u32, usize> {
        if self.slots.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.slots.len() - 1;
        let mut k = hash_bytes(token) as usize & mask;
        loop {
            match self.slots[k] {
                EMPTY => return Err(k),
                i if *entries[i as usize].0 == *token => return Ok(i),
                _ => k = (k + 1) & mask,
            }
        }
    }

    /// Room for `n` entries without growing.
    fn reserve(&mut self, n: usize) {
        if 2 * n > self.slots.len() {
            self.grow((2 * n).next_power_of_two(), &[]);
        }
    }

    fn grow(&mut self, size: usize, entries: &[(Box<[u8]>, u32)]) {
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
        self.len = 0;
        for i in old.into_iter().filter(|&i| i != EMPTY) {
            self.insert(entries, i);
        }
    }

    /// Puts entry `index` in the empty slot `k` that `find` returned, if the
    /// table stays at most half full; false if it must grow first.
    fn put(&mut self, k: usize, index: u32) -> bool {
        if k >= self.slots.len() || 2 * (self.len + 1) > self.slots.len() {
            return false;
        }
        self.slots[k] = index;
        self.len += 1;
        true
    }

    /// Adds entry `index` (not present yet), growing to keep the table at most half full.
    fn insert(&mut self, entries: &[(Box<[u8]>, u32)], index: u32) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow((self.slots.len() * 2).max(64), entries);
        }
        let token = &entries[index as usize].0;
        if let Err(k) = self.find(entries, token) {
            self.slots[k] = index;
            self.len += 1;
        }
    }
}

impl Vocab {
    /// Builds a vocabulary from `(token, id)` pairs with Python dict
    /// semantics: a repeated token keeps its first position and takes the new id.
    pub fn from_pairs<I: IntoIterator<Item = (Vec<u8>, u32)>>(pairs: I) -> Self {
        let mut v = Vocab::default();
        for (token, id) in pairs {
            v.insert(token.into_boxed_slice(), id);
        }
        v.rebuild_ids();
        v
    }

    fn insert(&mut self, token: Box<[u8]>, id: u32) {
        match self.by_token.find(&self.entries, &token) {
            Ok(i) => self.entries[i as usize].1 = id,
            Err(k) => self.push(k, token, id),
        }
    }

    /// Appends a token that `find` did not find (`k`: the slot it returned).
    fn push(&mut self, k: usize, token: Box<[u8]>, id: u32) {
        self.entries.push((token, id));
        let index = self.entries.len() as u32 - 1;
        if !self.by_token.put(k, index) {
            self.by_token.insert(&self.entries, index);
        }
    }

    fn rebuild_ids(&mut self) {
        // Like `{v: k for k, v in vocab.items()}`: a later entry wins an id.
        let max = self.entries.iter().map(|e| e.1 as usize + 1).max().unwrap_or(0);
        self.by_id = if max <= 2 * self.entries.len() + 1024 {
            let mut dense = vec![EMPTY; max];
            for (i, e) in self.entries.iter().enumerate() {
                dense[e.1 as usize] = i as u32;
            }
            ById::Dense(dense)
        } else {
            ById::Sparse(self.entries.iter().enumerate().map(|(i, e)| (e.1, i as u32)).collect())
        };
    }

    /// Reads `path` as `reference`'s `load_vocab` does:
    /// - Google (bert-tensorflow 1.0.4): lines end at "\n" only (`GFile.readline`),
    ///   each is `str.strip()`ped, and a repeated token keeps its first id; ids
    ///   count distinct tokens.
    /// - transformers: universal newlines ("\n", "\r\n", "\r"), `rstrip("\n")`,
    ///   the id is the line number and a repeated token takes the later one.
    /// - tokenizers: lines end at "\n", each is `trim_end()`ed (Rust whitespace),
    ///   the id is the line number and a repeated token takes the later one.
    pub fn from_file(path: &Path, reference: Reference) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::VocabNotFound { path: path.to_owned() },
            _ => Error::VocabIo { path: path.to_owned(), source: e },
        })?;
        let text = std::str::from_utf8(&bytes).map_err(|e| Error::VocabNotUtf8 {
            path: path.to_owned(),
            line: 1 + bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count(),
        })?;
        Ok(Self::parse(text, reference))
    }

    /// The parsing half of [`Vocab::from_file`].
    pub fn parse(text: &str, reference: Reference) -> Self {
        let mut v = Vocab::default();
        // At most one token per line (plus one for "\r" line ends): no regrowth.
        let lines = text.bytes().filter(|&b| b == b'\n' || b == b'\r').count() + 1;
        v.by_token.reserve(lines);
        v.entries.reserve(lines);
        match reference {
            Reference::Google => {
                for line in text.split_inclusive('\n') {
                    // `str.strip()`: isspace() code points off both ends.
                    let token = line.trim_matches(|c| is_python_space(c as u32)).as_bytes();
                    if let Err(k) = v.by_token.find(&v.entries, token) {
                        let id = v.entries.len() as u32;
                        v.push(k, token.into(), id);
                    }
                }
            }
            Reference::Tokenizers => {
                // HF WordPiece::read_file: BufRead::lines() ("\n" or "\r\n"), trim_end().
                for (index, line) in text.split_inclusive('\n').enumerate() {
                    let token = line.strip_suffix('\n').unwrap_or(line).trim_end();
                    v.insert(token.as_bytes().to_vec().into_boxed_slice(), index as u32);
                }
            }
            Reference::Transformers => {
                let mut rest = text;
                let mut line_no = 0u32;
                while !rest.is_empty() {
                    let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
                    let token = rest.as_bytes()[..end].to_vec().into_boxed_slice();
                    let after = &rest[end..];
                    // One terminator: "\r\n", "\r" or "\n" (none after the last line).
                    rest = after.strip_prefix("\r\n").or_else(|| after.get(1..)).unwrap_or(after);
                    v.insert(token, line_no);
                    line_no += 1;
                }
            }
        }
        v.rebuild_ids();
        v
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `(token, id)` in insertion order.
    pub fn entries(&self) -> &[(Box<[u8]>, u32)] {
        &self.entries
    }

    pub fn id(&self, token: &[u8]) -> Option<u32> {
        self.by_token.find(&self.entries, token).ok().map(|i| self.entries[i as usize].1)
    }

    pub fn token(&self, id: u32) -> Option<&[u8]> {
        let i = match &self.by_id {
            ById::Dense(v) => *v.get(id as usize).filter(|&&i| i != EMPTY)?,
            ById::Sparse(m) => *m.get(&id)?,
        };
        Some(&*self.entries[i as usize].0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(v: &Vocab) -> Vec<(String, u32)> {
        v.entries().iter().map(|(t, i)| (String::from_utf8(t.to_vec()).unwrap(), *i)).collect()
    }

    #[test]
    fn google_strips_lines_and_keeps_first_id() {
        let v = Vocab::parse(" a \r\nb\n\u{2028}\na\n\nc", Reference::Google);
        let want = [("a", 0), ("b", 1), ("", 2), ("c", 3)];
        assert_eq!(tokens(&v), want.map(|(t, i)| (t.to_string(), i)));
        assert_eq!(v.token(2), Some(&b""[..]));
    }

    #[test]
    fn transformers_uses_universal_newlines_and_keeps_last_id() {
        let v = Vocab::parse(" a \r\nb\rc\u{2028}\n a \n", Reference::Transformers);
        let want = [(" a ", 3), ("b", 1), ("c\u{2028}", 2)];
        assert_eq!(tokens(&v), want.map(|(t, i)| (t.to_string(), i)));
        assert_eq!(v.token(0), None);
        assert_eq!(v.id(b" a "), Some(3));
    }

    #[test]
    fn tokenizers_trims_line_ends_and_keeps_last_id() {
        let v = Vocab::parse(" a \r\nb\u{2028}\n a\n", Reference::Tokenizers);
        let want = [(" a", 2), ("b", 1)];
        assert_eq!(tokens(&v), want.map(|(t, i)| (t.to_string(), i)));
    }

    #[test]
    fn ids_far_apart_and_missing_ids() {
        let v = Vocab::from_pairs([(b"a".to_vec(), 4_000_000_000), (b"b".to_vec(), 1), (b"a".to_vec(), 7)]);
        assert_eq!((v.token(7), v.token(1), v.token(4_000_000_000), v.token(0)), (Some(&b"a"[..]), Some(&b"b"[..]), None, None));
        let v = Vocab::from_pairs([(b"a".to_vec(), 4_000_000_000), (b"b".to_vec(), 1)]);
        assert_eq!((v.token(4_000_000_000), v.token(1), v.token(2)), (Some(&b"a"[..]), Some(&b"b"[..]), None));
        // Many tokens: the index grows past its first size and finds all of them.
        let v = Vocab::from_pairs((0..5000u32).map(|i| (format!("t{i}").into_bytes(), i)));
        assert!((0..5000u32).all(|i| v.id(format!("t{i}").as_bytes()) == Some(i)));
    }

    #[test]
    fn empty_file_is_empty_vocab() {
        assert!(Vocab::parse("", Reference::Google).is_empty());
        assert!(Vocab::parse("", Reference::Transformers).is_empty());
    }
}
