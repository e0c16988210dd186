//! What a batch row is made of: the options that say what goes around each
//! row and how it is cut (`BatchOptions`, a pair's `PairTruncation`), and the
//! row's two ends. Shared by batch.rs (single texts) and batch_pairs.rs (pairs).

/// What to add around and how to cut each row.
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchOptions {
    /// `(cls id, sep id)` to put around each row, if any.
    pub special: Option<(u32, u32)>,
    /// Keep at most this many ids per row, special tokens included (right truncation).
    pub max_length: Option<usize>,
    pub offsets: bool,
    /// How a pair is cut to `max_length` (pairs only).
    pub pair: PairTruncation,
    /// Every text is known to be generalized UTF-8 (a `str`'s own UTF-8, or one encoded with
    /// "surrogatepass"): a row cut at `max_length` leaves the rest of its text unread, instead of
    /// checking it so that malformed bytes are the error they are uncut.
    pub valid_text: bool,
}

/// HF tokenizers' truncation strategies for a pair (right side).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PairTruncation {
    /// Cut the longer sequence first (HF's rule for how the two end up).
    #[default]
    LongestFirst,
    OnlyFirst,
    OnlySecond,
}

impl PairTruncation {
    /// How many ids of each sequence a pair keeps within `limit` ids, as HF
    /// tokenizers' `truncate_encodings` decides; `None` when the strategy
    /// cannot fit (the sequence it may cut is too short).
    pub fn keep(self, n1: usize, n2: usize, limit: usize) -> Option<(usize, usize)> {
        if n1 + n2 <= limit {
            return Some((n1, n2));
        }
        let remove = n1 + n2 - limit;
        match self {
            PairTruncation::LongestFirst => {
                let swap = n1 > n2;
                let mut short = n1.min(n2);
                let mut long = if short > limit { short } else { short.max(limit - short) };
                if short + long > limit {
                    short = limit / 2;
                    long = short + limit % 2;
                }
                let (k1, k2) = if swap { (long, short) } else { (short, long) };
                Some((n1.min(k1), n2.min(k2)))
            }
            PairTruncation::OnlyFirst => (n1 > remove).then(|| (n1 - remove, n2)),
            PairTruncation::OnlySecond => (n2 > remove).then(|| (n1, n2 - remove)),
        }
    }
}

/// Starts a row at `row.len()`: [CLS] (or its `(0, 0)` offset) when asked.
pub(crate) fn open_row<T>(opts: &BatchOptions, row: &mut Vec<T>, cls: impl FnOnce(u32) -> T) -> usize {
    let start = row.len();
    if let Some((id, _)) = opts.special {
        row.push(cls(id));
    }
    start
}

/// Ends the row begun at `start`: cut to `max_length` (special tokens
/// included, [CLS] always kept), then [SEP] when asked.
pub(crate) fn close_row<T>(opts: &BatchOptions, row: &mut Vec<T>, start: usize, sep: impl FnOnce(u32) -> T) {
    let n_special = if opts.special.is_some() { 2 } else { 0 };
    if let Some(max) = opts.max_length {
        row.truncate(start.saturating_add(n_special / 2 + max.saturating_sub(n_special)));
    }
    if let Some((_, id)) = opts.special {
        row.push(sep(id));
    }
}

/// How many of a text's own ids [`close_row`] keeps (`None`: all).
pub(crate) fn content_limit(opts: &BatchOptions) -> Option<usize> {
    let n_special = if opts.special.is_some() { 2 } else { 0 };
    opts.max_length.map(|max| max.saturating_sub(n_special))
}
