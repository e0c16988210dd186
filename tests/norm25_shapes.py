"""tokenizer.json files for the normalizer tests, built at test time with HF
tokenizers' own classes: a "char" tokenizer (BPE without merges over single
chars, no pre-tokenizer) whose tokens and offsets are the normalized chars and
their original spans, and GPT-2's trained shape behind each normalizer."""

import functools
import json
import unicodedata

from tokenizers import AddedToken, PreTokenizedString, Regex, Tokenizer, models, normalizers

from bpe_shapes import gpt2_json

BERT = normalizers.BertNormalizer
NORMALIZERS = {
    "nfd": normalizers.NFD(), "nfkc": normalizers.NFKC(), "nfkd": normalizers.NFKD(), "nfc": normalizers.NFC(),
    "lowercase": normalizers.Lowercase(), "strip_accents": normalizers.StripAccents(),
    "bert": BERT(), "bert_cased": BERT(lowercase=False), "bert_keep_accents": BERT(strip_accents=False),
    "bert_strip_cased": BERT(lowercase=False, strip_accents=True),
    "bert_raw": BERT(clean_text=False, handle_chinese_chars=False),
    "strip": normalizers.Strip(), "lstrip": normalizers.Strip(left=True, right=False),
    "rstrip": normalizers.Strip(left=False, right=True),
    "replace_spaces": normalizers.Replace(" ", "▁"), "replace_multi": normalizers.Replace("an", "ANX"),
    "replace_erase": normalizers.Replace("e", ""),
    "replace_runs": normalizers.Replace(Regex(" {2,}"), " "),
    "replace_ws": normalizers.Replace(Regex(r"\s+"), "_"),
    "replace_class": normalizers.Replace(Regex(r"[aeiou]+|x(yz)?"), "@@"),
    "prepend": normalizers.Prepend("▁"), "byte_level": normalizers.ByteLevel(), "nmt": normalizers.Nmt(),
    "llama": normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]),
    "sequence": normalizers.Sequence([normalizers.NFKD(), normalizers.StripAccents(), normalizers.Lowercase(),
                                      normalizers.Replace(Regex(r"\s+"), " "), normalizers.Strip()]),
}


def assigned_in_3_2(c):
    """Characters whose data HF's older Unicode tables and the oracle's agree on."""
    return unicodedata.ucd_3_2_0.category(c) != "Cn" and not 0xD800 <= ord(c) <= 0xDFFF


def char_json(normalizer, texts):
    """A tokenizer whose tokens are the normalized chars of `texts` (any other is [UNK])."""
    chars = sorted({c for t in texts for c in normalizer.normalize_str(t)})
    vocab = {"[UNK]": 0, **{c: i + 1 for i, c in enumerate(chars)}}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="[UNK]"))
    tok.normalizer = normalizer
    return tok.to_str()


@functools.lru_cache(maxsize=None)
def gpt2_with(name):
    """GPT-2's trained BPE behind normalizer `name`, with normalized added tokens (matched after normalizing)."""
    tok = Tokenizer.from_str(gpt2_json())
    tok.normalizer = NORMALIZERS[name]
    tok.add_tokens([AddedToken("Hello World", normalized=True), AddedToken("ÉTÉ", normalized=True, single_word=True),
                    AddedToken(" 中", normalized=True)])
    return tok.to_str()


def config_of(normalizer):
    """The tokenizer.json dict of an HF normalizer object."""
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizer
    return json.loads(tok.to_str())["normalizer"]


def hf_chars(normalizer, text):
    """What tokenizers' NormalizedString holds after `normalizer`: (text, each char's original span)."""
    p = PreTokenizedString(text)
    p.normalize(lambda ns: normalizer.normalize(ns))
    p.split(lambda i, ns: [ns[j:j + 1] for j in range(len(ns.normalized))])
    splits = p.get_splits(offset_referential="original", offset_type="char")
    return "".join(s for s, _, _ in splits), [o for _, o, _ in splits]
