"""Hypothesis strategies for component constructor calls, as library-neutral specs
(module, class, args, kwargs) that build the same component with tokenizers 0.23.3
or with bertpiece, for tests/test_pipeline_components*.py. Invalid values are drawn
too (only kinds measured on tokenizers: wrong types, bad lengths, bad variants)."""

import types

import tokenizers
from hypothesis import strategies as st

import bertpiece

HF = types.SimpleNamespace(
    normalizers=tokenizers.normalizers, pre_tokenizers=tokenizers.pre_tokenizers, models=tokenizers.models,
    processors=tokenizers.processors, decoders=tokenizers.decoders, Regex=tokenizers.Regex, Tokenizer=tokenizers.Tokenizer,
)
OURS = types.SimpleNamespace(
    normalizers=bertpiece.normalizers, pre_tokenizers=bertpiece.pre_tokenizers, models=bertpiece.models,
    processors=bertpiece.processors, decoders=bertpiece.decoders, Regex=bertpiece.Regex, Tokenizer=bertpiece.Tokenizer,
)


class Spec:
    """A constructor call: module.cls(*args, **kwargs); args may hold Specs and Regexes."""

    def __init__(self, module, cls, *args, **kwargs):
        self.module, self.cls, self.args, self.kwargs = module, cls, args, kwargs

    def __repr__(self):
        inner = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.module}.{self.cls}({', '.join(inner)})"


class Re:
    def __init__(self, pattern):
        self.pattern = pattern

    def __repr__(self):
        return f"Regex({self.pattern!r})"


def build(value, lib):
    if isinstance(value, Spec):
        cls = getattr(getattr(lib, value.module), value.cls)
        return cls(*[build(a, lib) for a in value.args], **{k: build(v, lib) for k, v in value.kwargs.items()})
    if isinstance(value, Re):
        return lib.Regex(value.pattern)
    if isinstance(value, list):
        return [build(v, lib) for v in value]
    return value


TEXT = st.text(alphabet=st.sampled_from("ab ▁#<>/_-\u00e9\u4e00"), max_size=4)
CHAR = st.sampled_from(["▁", "_", " ", "|", "x", "é", "▁", "_", "", "ab"])  # mostly one char
BOOL = st.sampled_from([True, False] * 6 + [0, 1, "x"])  # ints are refused by both
OPT_BOOL = st.sampled_from([None, True, False] * 4 + [0, "x"])
UINT = st.integers(-1, 300)
BEHAVIOR = st.sampled_from(["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous", "Isolated", "x"])
SCHEME = st.sampled_from(["always", "first", "never", "Always", "x"])
PATTERN = st.one_of(TEXT, TEXT.map(Re), st.just(3))


def _plain(module, names):
    return st.sampled_from(names).map(lambda n: Spec(module, n))


def normalizer(depth=1):
    n = "normalizers"
    leaf = st.one_of(
        _plain(n, ["NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Nmt", "StripAccents", "ByteLevel"]),
        st.builds(lambda a, b, c, d: Spec(n, "BertNormalizer", clean_text=a, handle_chinese_chars=b, strip_accents=c,
                                           lowercase=d), BOOL, BOOL, OPT_BOOL, BOOL),
        st.builds(lambda a, b: Spec(n, "Strip", left=a, right=b), BOOL, BOOL),
        st.builds(lambda a: Spec(n, "Prepend", a), TEXT),
        st.builds(lambda p, c: Spec(n, "Replace", p, c), PATTERN, TEXT),
    )
    if depth == 0:
        return leaf
    return st.one_of(leaf, st.lists(normalizer(depth - 1), max_size=3).map(lambda xs: Spec(n, "Sequence", xs)))


def pre_tokenizer(depth=1):
    p = "pre_tokenizers"
    leaf = st.one_of(
        _plain(p, ["Whitespace", "WhitespaceSplit", "BertPreTokenizer", "UnicodeScripts"]),
        st.builds(lambda a, b, c: Spec(p, "ByteLevel", add_prefix_space=a, trim_offsets=b, use_regex=c), BOOL, BOOL, BOOL),
        st.builds(lambda c: Spec(p, "CharDelimiterSplit", c), CHAR),
        st.builds(lambda b: Spec(p, "Digits", individual_digits=b), BOOL),
        st.builds(lambda r, s, x: Spec(p, "Metaspace", replacement=r, prepend_scheme=s, split=x), CHAR, SCHEME, BOOL),
        st.builds(lambda b: Spec(p, "Punctuation", b), BEHAVIOR),
        st.builds(lambda a, b, c: Spec(p, "Split", a, b, invert=c), PATTERN, BEHAVIOR, BOOL),
    )
    if depth == 0:
        return leaf
    return st.one_of(leaf, st.lists(pre_tokenizer(depth - 1), max_size=3).map(lambda xs: Spec(p, "Sequence", xs)))


SPECIAL = st.one_of(st.tuples(TEXT, st.integers(0, 50)), st.tuples(st.integers(0, 50), TEXT), TEXT)
PIECE = st.sampled_from(["$A", "$B", "$", "$a", "$b", "$0", "$1", "$+2", "$A:1", "$B:1", "$B:x", "$C", "[CLS]", "[SEP]",
                         "[SEP]:1", "<s>", "a:b:c"])


def processor(depth=1):
    r = "processors"
    tok = st.tuples(TEXT, st.integers(0, 50))
    template = st.one_of(st.lists(PIECE, max_size=5).map(" ".join), st.lists(PIECE, max_size=5), st.none())
    leaf = st.one_of(
        st.builds(lambda s, c: Spec(r, "BertProcessing", s, c), tok, tok),
        st.builds(lambda s, c, t, a: Spec(r, "RobertaProcessing", s, c, trim_offsets=t, add_prefix_space=a), tok, tok,
                  BOOL, BOOL),
        st.builds(lambda a, b, c: Spec(r, "ByteLevel", add_prefix_space=a, trim_offsets=b, use_regex=c), OPT_BOOL,
                  OPT_BOOL, OPT_BOOL),
        st.builds(lambda s, p, t: Spec(r, "TemplateProcessing", single=s, pair=p, special_tokens=t), template, template,
                  st.one_of(st.none(), st.lists(SPECIAL, max_size=3),
                            st.just([("[CLS]", 1), ("[SEP]", 2), ("<s>", 0)]))),
    )
    if depth == 0:
        return leaf
    return st.one_of(leaf, st.lists(processor(depth - 1), max_size=3).map(lambda xs: Spec(r, "Sequence", xs)))


def decoder(depth=1):
    d = "decoders"
    leaf = st.one_of(
        _plain(d, ["ByteFallback", "Fuse", "ByteLevel"]),
        st.builds(lambda s: Spec(d, "BPEDecoder", suffix=s), TEXT),
        st.builds(lambda a, b, c: Spec(d, "CTC", pad_token=a, word_delimiter_token=b, cleanup=c), TEXT, TEXT, BOOL),
        st.builds(lambda r, s, x: Spec(d, "Metaspace", replacement=r, prepend_scheme=s, split=x), CHAR, SCHEME, BOOL),
        st.builds(lambda p, c: Spec(d, "Replace", p, c), PATTERN, TEXT),
        st.builds(lambda c, a, b: Spec(d, "Strip", content=c, left=a, right=b), CHAR, UINT, UINT),
        st.builds(lambda p, c: Spec(d, "WordPiece", prefix=p, cleanup=c), TEXT, BOOL),
    )
    if depth == 0:
        return leaf
    return st.one_of(leaf, st.lists(decoder(depth - 1), max_size=3).map(lambda xs: Spec(d, "Sequence", xs)))


@st.composite
def bpe(draw):
    m = "models"
    alphabet = draw(st.lists(st.sampled_from("abcdé"), min_size=1, max_size=4, unique=True))
    prefix = draw(st.sampled_from([None, "##", "", None]))
    vocab = {c: k for k, c in enumerate(alphabet)}
    merges = []
    for _ in range(draw(st.integers(0, 4))):
        a, b = draw(st.sampled_from(sorted(vocab))), draw(st.sampled_from(sorted(vocab)))
        merges.append((a, b))
        if draw(st.integers(0, 5)):  # now and then a merge whose result is missing
            vocab.setdefault(a + b[len(prefix or ""):], len(vocab))
    kw = dict(vocab=vocab, merges=merges) if draw(st.booleans()) else {}
    if draw(st.integers(0, 9)) == 0:
        kw.pop("merges", None)
    options = dict(
        dropout=st.sampled_from([None, 0.0, 0.25, 1.0, 1.5, -0.1, "x"]), unk_token=st.one_of(st.none(), TEXT),
        continuing_subword_prefix=st.just(prefix), end_of_word_suffix=st.one_of(TEXT, st.none()), fuse_unk=OPT_BOOL,
        byte_fallback=BOOL, ignore_merges=BOOL, cache_capacity=st.sampled_from([0, 100, None]),
    )
    for key, values in options.items():
        # An option not given differs from one given as None (refused for most).
        if draw(st.integers(0, 3)) or (key == "continuing_subword_prefix" and prefix is not None):
            kw[key] = draw(values)
    return Spec(m, "BPE", **kw)


# Distinct ids: with two tokens on one id tokenizers keeps one of them, chosen by its
# hash map's order (test_pipeline_components.py checks that case on its own).
VOCAB = st.dictionaries(TEXT, st.integers(0, 40), max_size=5).filter(lambda d: len(set(d.values())) == len(d))


def model():
    m = "models"
    unigram_vocab = st.lists(st.tuples(st.sampled_from(["a", "b", "ab", "<unk>", "é", ""]) | TEXT,
                                       st.floats(-20, 0, allow_nan=False)), max_size=5)
    return st.one_of(
        bpe(),
        st.builds(lambda v, u, n, p: Spec(m, "WordPiece", v, unk_token=u, max_input_chars_per_word=n,
                                          continuing_subword_prefix=p), st.one_of(st.none(), VOCAB), TEXT, UINT, TEXT),
        st.builds(lambda v, u: Spec(m, "WordLevel", v, unk_token=u), st.one_of(st.none(), VOCAB), st.one_of(st.none(), TEXT)),
        st.builds(lambda v, u, b: Spec(m, "Unigram", v, unk_id=u, byte_fallback=b), st.one_of(st.none(), unigram_vocab),
                  st.one_of(st.none(), st.integers(0, 6)), OPT_BOOL),
    )


FAMILIES = {"normalizer": normalizer(), "pre_tokenizer": pre_tokenizer(), "model": model(),
            "post_processor": processor(), "decoder": decoder()}


def template():
    """TemplateProcessing with its special tokens mostly given, so most templates build."""
    r = "processors"
    pieces = st.lists(PIECE, max_size=6)
    given_specials = st.just([("[CLS]", 1), ("<s>", 0), (2, "[SEP]"), {"id": "x", "ids": [3, 4], "tokens": ["a", "b"]}])
    return st.builds(lambda s, p, t, j: Spec(r, "TemplateProcessing", single=" ".join(s) if j else s,
                                             pair=" ".join(p) if j else p, special_tokens=t),
                     pieces, pieces.map(lambda xs: xs + ["$A", "$B:1"] if len(xs) % 2 else xs),
                     st.one_of(given_specials, st.lists(SPECIAL, max_size=3)), st.booleans())


FAMILIES["template"] = template()
