"""What a `BertTokenizer` derives from its settings and vocabulary: the Rust
core, legacy mode's WordPiece-only tokenizer, the vocabulary as Python dicts
and the added-token matchers.

It is one attribute (`_engine`) so that pickling the tokenizer's `__dict__`
(as `datasets`' fingerprint does for every `PreTrainedTokenizerBase`) is
deterministic: an engine pickles as its vocabulary entries and settings,
never as the lazily built tables, which would change the hash once used.
"""

from __future__ import annotations

from .. import _core
from .._entries import pack_entries, unpack_entries


class Engine:
    __slots__ = ("core", "settings", "wordpiece", "vocab", "ids_to_tokens", "matcher", "nonspecial_matcher",
                 "serving", "legacy_split")

    def __init__(self, core, settings, wordpiece_only=False):
        self.core = core
        self.settings = settings  # the core's constructor arguments, for pickling
        self.wordpiece = None
        self.vocab = self.ids_to_tokens = None
        self.matcher = self.nonspecial_matcher = None
        self.serving = None  # serving.py's ServingState, dropped on any change of the tokenizer
        self.legacy_split = None  # legacy_split_tokenizers(), built on first use
        if wordpiece_only:  # legacy mode, do_basic_tokenize=False
            self.wordpiece = _core.WordpieceTokenizer(list(self.vocab_dict()), settings["unk_token"],
                                                      settings["max_input_chars_per_word"])

    @classmethod
    def build(cls, vocab_file, entries, do_lower_case, wordpiece_only, **kwargs):
        """The Rust tokenizer over a vocab file or in-memory (token, id) entries."""
        if entries is not None:
            core = _core.FullTokenizer.from_entries(entries, do_lower_case, **kwargs)
        else:
            core = _core.FullTokenizer(vocab_file, do_lower_case, **kwargs)
        return cls(core, dict(kwargs, do_lower_case=do_lower_case), wordpiece_only)

    def shallow_copy(self):
        """Another engine on the same core and tables (`epochs.py`'s snapshots:
        the tokenizer replaces its matchers on a change, never mutates them)."""
        out = Engine.__new__(Engine)
        for name in Engine.__slots__:
            setattr(out, name, getattr(self, name))
        out.serving = None
        return out

    def legacy_split_tokenizers(self):
        """(BasicTokenizer, WordpieceTokenizer) of the core's settings, apart: legacy mode's
        `split_special_tokens=True` runs them itself (transformers' `_tokenize` on the whole text)."""
        if self.legacy_split is None:
            st = self.settings
            basic = _core.BasicTokenizer(st["do_lower_case"], reference=st["reference"],
                                         never_split=st.get("never_split"),
                                         tokenize_chinese_chars=st["tokenize_chinese_chars"],
                                         strip_accents=st["strip_accents"])
            wordpiece = self.wordpiece or _core.WordpieceTokenizer(list(self.vocab_dict()), st["unk_token"],
                                                                   st["max_input_chars_per_word"])
            self.legacy_split = basic, wordpiece
        return self.legacy_split

    def vocab_dict(self):
        if self.vocab is None:  # built on first use: a 119k-entry dict would double the load time
            self.vocab = dict(self.core.vocab_entries())
        return self.vocab

    def ids_dict(self):
        if self.ids_to_tokens is None:
            out = {}
            for tok, i in self.vocab_dict().items():
                out.setdefault(i, tok)
            self.ids_to_tokens = out
        return self.ids_to_tokens

    def state(self):
        """What rebuilds this engine (`rebuild(*state)`): packed vocabulary entries, settings, mode."""
        return pack_entries(self.core.vocab_entries()), tuple(sorted(self.settings.items())), self.wordpiece is not None

    def __reduce__(self):
        return rebuild, self.state()


def rebuild(packed_entries, settings, wordpiece_only):
    kwargs = dict(settings)
    do_lower_case = kwargs.pop("do_lower_case")
    return Engine.build(None, unpack_entries(packed_entries), do_lower_case, wordpiece_only, **kwargs)
