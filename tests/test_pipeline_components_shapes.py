"""Tokenizers built in code, step by step, with bertpiece's component classes equal
the same built with tokenizers 0.23.3's (GPT-2, RoBERTa, BERT, XLM-R/T5 with a
sentencepiece charsmap, CLIP shapes): encode of every UD line (ids, tokens, offsets,
word ids, type ids, special-tokens mask), pairs, decode; and the Tokenizer's
component properties (get, set, = None, shared components) as tokenizers'."""

import json
import pickle

import pytest

from bpe_shapes import ATTRS, UD_FILES, assert_same, gpt2_json, roberta_json, ud_lines
from components_specs import HF, OURS

CLIP_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""


def bpe_parts(text):
    model = json.loads(text)["model"]
    return model["vocab"], [tuple(m) for m in model["merges"]]


def gpt2(lib):
    vocab, merges = bpe_parts(gpt2_json())
    tok = lib.Tokenizer(lib.models.BPE(vocab, merges))
    tok.pre_tokenizer = lib.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.post_processor = lib.processors.ByteLevel(trim_offsets=False)
    tok.decoder = lib.decoders.ByteLevel()
    return tok


def roberta(lib):
    vocab, merges = bpe_parts(roberta_json())
    tok = lib.Tokenizer(lib.models.BPE(vocab=vocab, merges=merges, unk_token="<unk>"))
    tok.pre_tokenizer = lib.pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.post_processor = lib.processors.RobertaProcessing(("</s>", vocab["</s>"]), ("<s>", vocab["<s>"]))
    tok.decoder = lib.decoders.ByteLevel()
    return tok


def bert(lib):
    import bertpiece

    tok = lib.Tokenizer(lib.models.WordPiece.from_file(bertpiece.vocab_path("bert-base-uncased"), unk_token="[UNK]"))
    tok.normalizer = lib.normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = lib.pre_tokenizers.BertPreTokenizer()
    tok.post_processor = lib.processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
    tok.decoder = lib.decoders.WordPiece(prefix="##")
    return tok


def _sentencepiece(lib):
    from precomp_shapes import charsmap, spm_model

    proto = spm_model("nmt_nfkc")[1]
    tok = lib.Tokenizer(lib.models.Unigram([(p.piece, p.score) for p in proto.pieces], unk_id=proto.trainer_spec.unk_id))
    tok.normalizer = lib.normalizers.Sequence([
        lib.normalizers.Precompiled(charsmap("nmt_nfkc")), lib.normalizers.Strip(left=False, right=True),
        lib.normalizers.Replace(lib.Regex(" {2,}"), "▁"),
    ])
    tok.pre_tokenizer = lib.pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = lib.decoders.Metaspace(replacement="▁", prepend_scheme="always")
    return tok


def xlmr(lib):
    tok = _sentencepiece(lib)
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = lib.processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)])
    return tok


def t5(lib):
    tok = _sentencepiece(lib)
    eos = tok.token_to_id("</s>")
    tok.post_processor = lib.processors.TemplateProcessing(single=["$A", "</s>"], pair="$A </s> $B </s>",
                                                           special_tokens=[("</s>", eos)])
    return tok


def clip(lib):
    from test_pipeline_bpe_clip import clip_json

    vocab, merges = bpe_parts(clip_json())
    tok = lib.Tokenizer(lib.models.BPE(vocab=vocab, merges=merges, dropout=None, continuing_subword_prefix="",
                                       end_of_word_suffix="</w>", fuse_unk=False, unk_token="<end_of_text>"))
    tok.normalizer = lib.normalizers.Sequence(
        [lib.normalizers.NFC(), lib.normalizers.Replace(lib.Regex(r"\s+"), " "), lib.normalizers.Lowercase()])
    tok.pre_tokenizer = lib.pre_tokenizers.Sequence([
        lib.pre_tokenizers.Split(lib.Regex(CLIP_SPLIT), behavior="removed", invert=True),
        lib.pre_tokenizers.ByteLevel(add_prefix_space=False),
    ])
    tok.decoder = lib.decoders.ByteLevel()
    tok.post_processor = lib.processors.RobertaProcessing(
        ("<end_of_text>", vocab["<end_of_text>"]), ("<start_of_text>", vocab["<start_of_text>"]), False, False)
    return tok


SHAPES = {"gpt2": gpt2, "roberta": roberta, "bert": bert, "xlmr": xlmr, "t5": t5, "clip": clip}
ALL_LINES = [line for path in UD_FILES for line in ud_lines(path)]
# Every 16th UD line per shape keeps this file near 30 s on one core; the stored JSON
# is compared whole, and tokenizers' own files of these shapes run on every line
# in test_pipeline_bpe*.py / test_pipeline_models.py / test_pipeline_precompiled.py.
LINES = ALL_LINES[::16]


def stored(tok):
    # The tokenizer.json both write (truncation and padding compared through the properties).
    doc = json.loads(tok.to_str())
    return {k: v for k, v in doc.items() if k not in ("truncation", "padding")}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_built_in_code_equals_tokenizers_on_ud_lines(shape):
    ours, theirs = SHAPES[shape](OURS), SHAPES[shape](HF)
    assert stored(ours) == stored(theirs)
    for slot in ("normalizer", "pre_tokenizer", "model", "post_processor", "decoder"):
        got, want = getattr(ours, slot), getattr(theirs, slot)
        assert (got is None) == (want is None), slot
        if got is not None:
            assert json.loads(got.__getstate__()) == json.loads(want.__getstate__()), slot
    got_all, want_all = ours.encode_batch(LINES), theirs.encode_batch(LINES)
    for line, got, want in zip(LINES, got_all, want_all):
        assert_same(got, want, line)
    for line, want in list(zip(LINES, want_all))[::10]:
        assert ours.decode(want.ids) == theirs.decode(want.ids), line
        assert ours.decode(want.ids, skip_special_tokens=False) == theirs.decode(want.ids, skip_special_tokens=False)
    pairs = list(zip(ALL_LINES[::97], ALL_LINES[1::97]))
    for got, want, pair in zip(ours.encode_batch(pairs), theirs.encode_batch(pairs), pairs):
        assert_same(got, want, pair)


def test_stage_set_to_none_and_replaced_as_tokenizers():
    ours, theirs = bert(OURS), bert(HF)
    ours.enable_truncation(12, stride=2)
    theirs.enable_truncation(12, stride=2)
    ours.enable_padding(length=16)
    theirs.enable_padding(length=16)
    lines = ALL_LINES[::300]
    edits = [
        ("normalizer", None), ("pre_tokenizer", None), ("post_processor", None), ("decoder", None),
        ("normalizer", "normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])"),
        ("pre_tokenizer", "pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])"),
        ("post_processor", "processors.TemplateProcessing(single='[CLS] $A', pair='$A [SEP] $B:1', special_tokens=[('[CLS]', 101), ('[SEP]', 102)])"),
        ("decoder", "decoders.WordPiece(cleanup=False)"),
        ("model", "models.WordLevel({'[UNK]': 0, 'the': 1, 'a': 2, '[CLS]': 101, '[SEP]': 102}, unk_token='[UNK]')"),
    ]
    for slot, code in edits:
        for tok, lib in ((ours, OURS), (theirs, HF)):
            setattr(tok, slot, None if code is None else eval(code, vars(lib)))
        assert stored(ours) == stored(theirs), slot
        assert ours.truncation == theirs.truncation and ours.padding == theirs.padding
        for line in lines:
            for got, want in zip([ours.encode(line)] + ours.encode(line).overflowing,
                                 [theirs.encode(line)] + theirs.encode(line).overflowing):
                assert_same(got, want, (slot, line))
            ids = theirs.encode(line).ids
            assert ours.decode(ids) == theirs.decode(ids), (slot, line)


def test_components_are_shared_with_the_tokenizer_as_in_tokenizers():
    for lib in (OURS, HF):
        lib.tok = gpt2(lib)
        lib.pre = lib.pre_tokenizers.ByteLevel(add_prefix_space=False)
        lib.tok.pre_tokenizer = lib.pre
        lib.pre.add_prefix_space = True  # the object assigned
        lib.tok.model.unk_token = "Ġ"  # the object the getter returned
        lib.tok.post_processor.trim_offsets = True
    assert stored(OURS.tok) == stored(HF.tok)
    for line in ALL_LINES[::500] + [" leading", "x  y"]:
        assert_same(OURS.tok.encode(line), HF.tok.encode(line), line)


def test_wrong_component_types_are_type_errors():
    tok = gpt2(OURS)
    for slot, value in (("normalizer", OURS.pre_tokenizers.Whitespace()), ("pre_tokenizer", 1),
                        ("model", None), ("post_processor", OURS.decoders.Fuse()), ("decoder", "x")):
        with pytest.raises(TypeError):
            setattr(gpt2(HF), slot, value if not hasattr(value, "_state") else getattr(
                getattr(HF, value.__module__.split(".")[-1]), type(value).__name__)())
        with pytest.raises(TypeError):
            setattr(tok, slot, value)
    for bad in (None, "x", OURS.normalizers.NFC()):
        with pytest.raises(TypeError):
            OURS.Tokenizer(bad)


def test_refused_component_leaves_the_tokenizer_unchanged():
    tok = gpt2(OURS)
    before = tok._json
    with pytest.raises(NotImplementedError, match=r"\\b"):
        tok.pre_tokenizer = OURS.pre_tokenizers.Split(OURS.Regex(r"\bx"), "isolated")
    model = tok.model
    with pytest.raises(NotImplementedError, match="dropout"):
        model.dropout = 0.5
    assert model.dropout is None  # the component is unchanged too
    assert tok._json == before
    assert_same(tok.encode("Hello there"), gpt2(HF).encode("Hello there"), "unchanged")


def test_code_built_tokenizer_pickles_and_from_str_of_tokenizers_output_stays():
    theirs = xlmr(HF)
    ours = pickle.loads(pickle.dumps(xlmr(OURS)))
    again = OURS.Tokenizer.from_str(theirs.to_str())
    for line in ALL_LINES[::700]:
        assert_same(ours.encode(line), theirs.encode(line), line)
        assert_same(again.encode(line), theirs.encode(line), line)
    assert [a for a in ATTRS]  # the compared columns
