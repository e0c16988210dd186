//! A thread's memo of the words the general path's BPE tokenized, as HF's
//! BPE keeps a cache of words (it has no dropout here, so a word's tokens
//! depend on the word and the model alone). Files no fast path takes (CLIP's:
//! a normalizer, a Split, `</w>`) spent a quarter of the call merging the
//! same words again (a `String` per char, a SipHash lookup per char and per
//! pair, a heap of candidates). Keyed by the model's [`Bpe::memo_key`]
//! (given by [`Bpe::new`]; 0, a model built field by field, has no memo), so
//! that two models on one thread never share words.
//!
//! [`Bpe::memo_key`]: super::Bpe
//! [`Bpe::new`]: super::Bpe::new

use super::ModelToken;
use crate::fxhash::FxHashMap;
use crate::room::make_room;
use crate::Result;
use std::cell::RefCell;

/// Longest word the memo keeps (bytes); longer ones are merged each time.
const MAX_BYTES: usize = 64;
/// Words, and their tokens, the memo holds before it starts over (~6 MB at most).
const MAX_WORDS: usize = 1 << 15;
const MAX_TOKENS: usize = 1 << 18;

#[derive(Default)]
struct Memo {
    owner: u64,
    /// word -> its tokens, `tokens[start..end]`
    words: FxHashMap<Box<str>, (u32, u32)>,
    tokens: Vec<ModelToken>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// Appends `word`'s tokens to `out`: the memo's copy when it has one, else
/// `merge(out)`'s (which appends them), then kept for the next time.
pub(super) fn tokenize(key: u64, word: &str, out: &mut Vec<ModelToken>, merge: impl FnOnce(&mut Vec<ModelToken>) -> Result<()>) -> Result<()> {
    if key == 0 || word.len() > MAX_BYTES {
        return merge(out);
    }
    MEMO.with(|memo| {
        // a re-entrant call (none today) merges without the memo rather than panicking
        let Ok(mut memo) = memo.try_borrow_mut() else { return merge(out) };
        let memo = &mut *memo;
        if memo.owner != key {
            memo.words.clear();
            memo.tokens.clear();
            memo.owner = key;
        }
        if let Some(&(start, end)) = memo.words.get(word) {
            let tokens = memo.tokens.get(start as usize..end as usize).unwrap_or_default();
            make_room(out, tokens.len(), "BPE tokens")?;
            out.extend_from_slice(tokens);
            return Ok(());
        }
        let from = out.len();
        merge(out)?;
        let new = out.get(from..).unwrap_or_default();
        if memo.words.len() >= MAX_WORDS || memo.tokens.len() + new.len() > MAX_TOKENS {
            memo.words.clear();
            memo.tokens.clear();
        }
        // kept only if there is room (a memo that cannot grow is no error)
        if memo.tokens.try_reserve(new.len()).is_ok() && memo.words.try_reserve(1).is_ok() {
            let start = memo.tokens.len() as u32;
            memo.tokens.extend_from_slice(new);
            memo.words.insert(word.into(), (start, memo.tokens.len() as u32));
        }
        Ok(())
    })
}

/// Drops this thread's memo (tests: the next word is merged again).
#[cfg(test)]
pub(super) fn forget() {
    MEMO.with(|memo| *memo.borrow_mut() = Memo::default());
}
