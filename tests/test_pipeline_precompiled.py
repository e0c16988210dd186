"""The Precompiled normalizer (sentencepiece charsmaps) of bertpiece.Tokenizer
against tokenizers 0.23.3 and the oracle (bertpiece.oracle_precompiled), with
real charsmaps from sentencepiece 0.2.3's trainer (tests/precomp_shapes.py):
alone (normalized chars and each char's original span), end to end in the
XLM-R and T5 shapes on every UD line, and against sentencepiece's own
normalizer where HF's per-grapheme rule and its longest match agree."""

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bertpiece import oracle_precompiled as oracle
from bpe_shapes import UD_FILES, assert_same, ud_lines
from norm25_shapes import char_json, hf_chars
from precomp_shapes import RULES, charsmap, precompiled, spm_model, spm_normalizer, t5_json, xlmr_json

# Graphemes of several chars (combining marks, ZWJ emoji, flags, Hangul jamo, CR LF, Indic conjuncts), ones
# shorter and longer than HF's 6-byte limit, full-width and compatibility forms, controls, odd spaces.
EDGE_TEXTS = [
    "", " ", "  a  b  ", "\t\n\r\n", "ＡＢＣ１２３　ｶﾀｶﾅ", "ﬁ ﬂ ™ ½ ① ㎏ Ⅷ", "ﬁ\u0301 ™\u0301 ①\u0308\u0308",
    "e\u0301 e\u0301\u0323 A\u030a\u0301\u0323", "👍🏽 👨‍👩‍👧 🏳️‍🌈 🇫🇷🇩🇪", "한국어 \u1100\u1161\u11a8 \u1100\u1161",
    "\x00a\x01\x1f\x7f\u0085\u200b\u200d\ufeff\ufffd", "\u3000\u2028\u2029\u00a0\u2581", "क्षि नमस्ते ত্র",
    "ÉTÉ été İΣσς ß ẞ", "\u0301a\u0308", "Hello<mask> world <mask>!", "中文字 ｟ ｠ 〜", "a\r\nb\u000bc",
    # ASCII next to what joins it into a grapheme (the ASCII runs the normalizer skips stop short of these).
    "ab\u0301cd \u0600ab \u0600\u0600x y\u200d\U0001F600z 1\ufe0f\u20e3# \u20e3 ab\r\ncd\r x\n\ry",
    "q\u0308\u0308 \U0001F1EB\U0001F1F7ab\u094dcd \u1100\u1161a \ufb01\u0301x ™a",
]


def lines(n):
    return EDGE_TEXTS + [line for path in UD_FILES for line in ud_lines(path, n)]


def test_identity_rule_has_no_charsmap_and_an_empty_one_is_malformed():
    # sentencepiece's identity rule stores no charsmap, so converters emit no Precompiled for it;
    # tokenizers 0.23.3 cannot parse an empty one (a panic on load), bertpiece says which field.
    assert charsmap("identity") == b""
    with pytest.raises(BaseException, match="Cannot parse precompiled_charsmap"):
        HFTokenizer.from_str(xlmr_json("nmt_nfkc").replace(_b64("nmt_nfkc"), ""))
    with pytest.raises(ValueError, match=r"normalizer\.normalizers\[0\]\.precompiled_charsmap: malformed"):
        bertpiece.Tokenizer.from_str(xlmr_json("nmt_nfkc").replace(_b64("nmt_nfkc"), ""))


def _b64(rule):
    import base64
    return base64.b64encode(charsmap(rule)).decode()


@pytest.mark.parametrize("rule", [r for r in RULES if r != "identity"])
def test_precompiled_alone_three_way(rule):
    texts = lines(40)
    normalizer = precompiled(rule)
    ours = bertpiece.Tokenizer.from_str(char_json(normalizer, texts))
    table = oracle.Charsmap(charsmap(rule))
    for text in texts:
        want = hf_chars(normalizer, text)
        assert want[0] == normalizer.normalize_str(text)
        enc = ours.encode(text)
        assert ("".join(enc.tokens), enc.offsets) == want, (rule, text)
        assert oracle.normalize(table, text) == (want[0], [tuple(o) for o in want[1]]), (rule, text)


@pytest.mark.parametrize("shape, rule", [(xlmr_json, "nmt_nfkc"), (t5_json, "nmt_nfkc_cf")], ids=["xlmr", "t5"])
def test_ud_lines_in_sentencepiece_shapes(shape, rule):
    text = shape(rule)
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    all_lines = lines(150)
    for line, a, b in zip(all_lines, ours.encode_batch(all_lines), theirs.encode_batch(all_lines)):
        assert_same(a, b, (rule, line))
    pairs = list(zip(all_lines[:200], all_lines[1:201]))
    for pair, a, b in zip(pairs, ours.encode_batch(pairs), theirs.encode_batch(pairs)):
        assert_same(a, b, (rule, pair))


def test_sentencepiece_agrees_on_every_ud_line_and_differs_on_graphemes():
    # sentencepiece takes the longest match at each position; HF the shortest match of a whole grapheme (< 6
    # bytes, losing its other chars) or of each char. Measured: every UD line normalizes alike (spaces collapsed:
    # SpmConverter's Strip / Replace stand for sentencepiece's cleanup); these graphemes do not (docs/pipeline.md).
    import sentencepiece as spm

    proc = spm.SentencePieceProcessor(model_proto=spm_model("nmt_nfkc")[0])
    hf = precompiled("nmt_nfkc")
    for text in [line for path in UD_FILES for line in ud_lines(path)]:
        assert " ".join(hf.normalize_str(text).split()) == " ".join(proc.normalize(text).replace("\u2581", " ").split()), text
    ours = bertpiece.Tokenizer.from_str(char_json(hf, list(DIFFERENT)))
    for text, (want_hf, want_spm) in DIFFERENT.items():
        assert (hf.normalize_str(text), proc.normalize(text)) == (want_hf, "\u2581" + want_spm), text
        assert "".join(ours.encode(text).tokens) == want_hf


DIFFERENT = {  # text: (tokenizers 0.23.3, sentencepiece 0.2.3), both nmt_nfkc
    "\ufb01\u0301": ("fi", "fi\u0301"),  # a 5-byte grapheme whose first char has an entry: the accent is lost
    "\u2122\u0301": ("TM", "TM\u0301"),
    "\uff76\uff9e": ("\u30ab\u3099", "\u30ac"),  # 6 bytes: char by char, so not composed
    "\u1100\u1161\u11a8": ("\u1100\u1161\u11a8", "\uac01"),  # conjoining jamo: one grapheme, no per-char entry
}
