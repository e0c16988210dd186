"""Pure-Python reference ("oracle") of BERT basic + WordPiece tokenization.

This module is the readable specification that the Rust core is tested against.
It is written for clarity, not speed, and follows two references step by step:

* ``"google"``: ``bert/tokenization.py`` from bert-tensorflow 1.0.4 (the original
  Google BERT code);
* ``"transformers"``: the slow ``BertTokenizer`` of Hugging Face transformers
  (``BasicTokenizer`` / ``WordpieceTokenizer``, v5 ``tokenization_bert_legacy.py``).

Both references call the running interpreter's ``unicodedata``, ``str.lower``,
``str.isspace``/``str.split`` and ``re`` ``\\d``, so their output depends on the
Unicode version of the Python that runs them.  The oracle pins all of that:
categories and normalization come from ``unicodedata2`` and the str-method data
from the generated ``_strtables`` (same Unicode version).  It never imports the
Rust extension.
"""

import collections
import re

import unicodedata2

from . import _strtables
from .oracle_chars import (  # noqa: F401  (the character rules, also read as oracle._lower etc.)
    _CJK_RE, _CLEANED, _is_control, _is_punctuation, _is_whitespace, _lower, _split_on_punc, _strip_accents)
from .oracle_train import train_likelihood  # noqa: F401  (the trainer's reference, re-exported)

REFERENCES = ("google", "transformers")
UNICODE_VERSION = _strtables.UNICODE_VERSION


class UnicodeVersionMismatch(ImportError):
    """The installed unicodedata2 is not the pinned Unicode version: the oracle
    would silently mix two versions (categories from one, str data from the other)."""


# Refuse rather than tokenize with another version's categories (unicodedata2 18 moves U+0897 out of Mn).
if unicodedata2.unidata_version != UNICODE_VERSION:
    raise UnicodeVersionMismatch(
        f"bertpiece.oracle needs Unicode {UNICODE_VERSION} data (the version bertpiece's core pins) but the "
        f"installed unicodedata2 has Unicode {unicodedata2.unidata_version}: "
        f"pip install \"unicodedata2=={UNICODE_VERSION.rsplit('.', 1)[0]}.*\"")

# Default WordPiece word-length limits of the two references.
_MAX_CHARS = {"google": 200, "transformers": 100}


def _check_reference(reference):
    if reference not in REFERENCES:
        raise ValueError(
            "unknown reference %r; valid references are: %s"
            % (reference, ", ".join(REFERENCES))
        )
    return reference


def _to_text(text):
    """Google's convert_to_unicode: bytes are UTF-8 with invalid bytes dropped."""
    if isinstance(text, str):
        return text
    if isinstance(text, bytes):
        return text.decode("utf-8", "ignore")
    raise TypeError("unsupported input type: %s (expected str or bytes)" % type(text).__name__)


# ---------------------------------------------------------------------------
# Whitespace splitting: Python's str.strip() / str.split() with no arguments,
# but with the pinned set of str.isspace() code points (it contains more than
# the cleaning step's whitespace: U+001C..U+001F, U+0085, U+2028, U+2029 ...).
# ---------------------------------------------------------------------------

_SPACE_CHARS = "".join(chr(cp) for cp in sorted(_strtables.SPACE))
_SPACE_RUN = re.compile("[%s]+" % "".join(re.escape(ch) for ch in _SPACE_CHARS))


def _strip(text):
    """str.strip() with no argument, from the pinned space table."""
    return text.strip(_SPACE_CHARS)


def whitespace_tokenize(text):
    """Both references: ``text.strip()`` then ``text.split()``."""
    text = _strip(text)
    if not text:
        return []
    return _SPACE_RUN.split(text)


# Google's _UNUSED_TOKEN_RE "^\[unused\d+\]$", with \d from the pinned table
# (re's \d is str.isdecimal()).
def _ranges(cps):
    cps = sorted(cps)
    start = prev = cps[0]
    for cp in cps[1:]:
        if cp != prev + 1:
            yield start, prev
            start = cp
        prev = cp
    yield start, prev


_DIGIT_CLASS = "".join(
    re.escape(chr(lo)) + ("-" + re.escape(chr(hi)) if hi != lo else "")
    for lo, hi in _ranges(_strtables.DECIMAL)
)
_UNUSED_TOKEN_RE = re.compile(r"^\[unused[%s]+\]$" % _DIGIT_CLASS)


def _is_preserved_unused(token, vocab):
    """Google's preserve_token() when FLAGS.preserve_unused_tokens is set."""
    return token in vocab and bool(_UNUSED_TOKEN_RE.search(token))


# ---------------------------------------------------------------------------
# The tokenizers.
# ---------------------------------------------------------------------------

class BasicTokenizer:
    """Cleaning, CJK spacing, lowercasing / accent stripping, punctuation split."""

    def __init__(self, do_lower_case=True, vocab=(), *, never_split=None,
                 tokenize_chinese_chars=True, strip_accents=None,
                 do_split_on_punc=True, preserve_unused_tokens=False,
                 reference="google"):
        self.reference = _check_reference(reference)
        self.do_lower_case = do_lower_case
        self.vocab = vocab
        self.never_split = set(never_split or ())
        self.tokenize_chinese_chars = tokenize_chinese_chars
        self.strip_accents = strip_accents
        self.do_split_on_punc = do_split_on_punc
        self.preserve_unused_tokens = preserve_unused_tokens

    def _clean_text(self, text):
        return text.translate(_CLEANED[self.reference])

    def _tokenize_chinese_chars(self, text):
        # CJK ideographs are written without spaces: make each one a word.
        return _CJK_RE.sub(lambda m: " %s " % m.group(), text)

    def _is_protected(self, token, never_split):
        return token in never_split or (
            self.preserve_unused_tokens and _is_preserved_unused(token, self.vocab)
        )

    def tokenize(self, text, never_split=None):
        text = _to_text(text)
        # transformers: the call's never_split is added to the constructor's.
        never_split = self.never_split.union(never_split) if never_split else self.never_split
        text = self._clean_text(text)
        if self.tokenize_chinese_chars:
            text = self._tokenize_chinese_chars(text)
        if self.reference == "transformers":
            # transformers NFC-normalizes so that precomposed and decomposed
            # spellings of a character give the same tokens; Google does not.
            text = unicodedata2.normalize("NFC", text)

        split_tokens = []
        for token in whitespace_tokenize(text):
            if self._is_protected(token, never_split):
                split_tokens.append(token)
                continue
            if self.do_lower_case:
                token = _lower(token)
                if self.strip_accents is not False:
                    token = _strip_accents(token)
            elif self.strip_accents:
                token = _strip_accents(token)
            # transformers' _run_split_on_punc checks never_split again, on the
            # lowercased/stripped token: "[MASK]" -> "[mask]" stays whole when
            # "[mask]" is in never_split. (never_split is transformers' option;
            # it means the same under both references.)
            if not self.do_split_on_punc or token in never_split:
                split_tokens.append(token)
            else:
                split_tokens.extend(_split_on_punc(token))
        # Lowercasing/stripping can create or remove spaces (e.g. a lone combining
        # mark vanishes): split again.
        return whitespace_tokenize(" ".join(split_tokens))

    def __reduce__(self):
        # Deterministic pickles (never_split is a set, pickled sorted); the
        # helper module is imported only when pickling.
        from ._pickle import reduce_oracle_part
        return reduce_oracle_part(self)


class WordpieceTokenizer:
    """Greedy longest-match-first WordPiece (identical in both references)."""

    def __init__(self, vocab, unk_token="[UNK]", max_input_chars_per_word=None, *,
                 reference="google"):
        self.reference = _check_reference(reference)
        self.vocab = vocab
        self.unk_token = unk_token
        if max_input_chars_per_word is None:
            max_input_chars_per_word = _MAX_CHARS[reference]
        self.max_input_chars_per_word = max_input_chars_per_word

    def _tokenize_word(self, word):
        if len(word) > self.max_input_chars_per_word:
            return [self.unk_token]
        pieces = []
        start = 0
        while start < len(word):
            # Longest vocabulary entry starting at `start`; non-initial pieces
            # are looked up with the "##" continuation prefix.
            end = len(word)
            piece = None
            while start < end:
                candidate = word[start:end]
                if start > 0:
                    candidate = "##" + candidate
                if candidate in self.vocab:
                    piece = candidate
                    break
                end -= 1
            if piece is None:
                # One unmatched position makes the whole word unknown.
                return [self.unk_token]
            pieces.append(piece)
            start = end
        return pieces

    def tokenize(self, text):
        text = _to_text(text)
        output = []
        for word in whitespace_tokenize(text):
            output.extend(self._tokenize_word(word))
        return output

    def __reduce__(self):
        from ._pickle import reduce_oracle_part
        return reduce_oracle_part(self)


def load_vocab(vocab_file, reference="google"):
    """Token -> id, read the way the chosen reference reads vocab.txt."""
    _check_reference(reference)
    if reference == "transformers":
        # open(..., encoding="utf-8").readlines(): universal newlines, so "\r\n"
        # and "\r" end lines too; only "\n" is stripped; a duplicate token keeps
        # its LAST line number, so ids are line numbers (possibly with gaps).
        with open(vocab_file, "r", encoding="utf-8") as reader:
            lines = reader.readlines()
        vocab = collections.OrderedDict()
        for index, token in enumerate(lines):
            vocab[token.rstrip("\n")] = index
        return vocab

    # Google: tf.gfile.GFile(...).readline() splits on "\n" only, each line is
    # str.strip()ped, and a duplicate keeps its FIRST id (ids stay dense).
    with open(vocab_file, "rb") as reader:
        data = reader.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError("vocabulary file %s is not valid UTF-8: %s" % (vocab_file, err)) from err
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # text ended with "\n": no further line
    vocab = collections.OrderedDict()
    for line in lines:
        token = _strip(line)
        if token not in vocab:
            vocab[token] = len(vocab)
    return vocab


class FullTokenizer:
    """BasicTokenizer, then WordPiece on each of its tokens."""

    def __init__(self, vocab_file, do_lower_case=True, *, reference="google",
                 never_split=None, tokenize_chinese_chars=True, strip_accents=None,
                 do_split_on_punc=True, preserve_unused_tokens=False,
                 max_input_chars_per_word=None, unk_token="[UNK]"):
        self.reference = _check_reference(reference)
        self.vocab = load_vocab(vocab_file, reference)
        self.inv_vocab = {v: k for k, v in self.vocab.items()}
        if unk_token not in self.vocab:
            # Our addition: neither reference checks this.
            raise ValueError("unk_token %r is not in the vocabulary %s" % (unk_token, vocab_file))
        self.basic_tokenizer = BasicTokenizer(
            do_lower_case=do_lower_case, vocab=self.vocab, never_split=never_split,
            tokenize_chinese_chars=tokenize_chinese_chars, strip_accents=strip_accents,
            do_split_on_punc=do_split_on_punc,
            preserve_unused_tokens=preserve_unused_tokens, reference=reference)
        self.wordpiece_tokenizer = WordpieceTokenizer(
            self.vocab, unk_token=unk_token,
            max_input_chars_per_word=max_input_chars_per_word, reference=reference)

    def tokenize(self, text):
        output = []
        for token in self.basic_tokenizer.tokenize(text):
            # Google keeps preserved [unusedN] tokens whole, transformers its
            # never_split tokens: both skip WordPiece for them.
            if self.basic_tokenizer._is_protected(token, self.basic_tokenizer.never_split):
                output.append(token)
            else:
                output.extend(self.wordpiece_tokenizer.tokenize(token))
        return output

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab[token] for token in tokens]

    def convert_ids_to_tokens(self, ids):
        return [self.inv_vocab[i] for i in ids]

    def __reduce__(self):
        # One copy of the vocabulary, not vocab + inv_vocab (see _pickle.py).
        from ._pickle import reduce_oracle_full_tokenizer
        return reduce_oracle_full_tokenizer(self)
