"""bertpiece.Tokenizer with the Unigram, WordPiece and WordLevel models, the
Metaspace pre-tokenizer, the decoders and BertProcessing, against tokenizers
0.23.3 on files trained at test time (tests/models_shapes.py) and on every UD
file, and three-way with the pure-Python oracle (bertpiece.oracle_models)."""

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bertpiece import oracle_decoders, oracle_models
from bpe_shapes import UD_FILES, assert_same, ud_lines
from models_shapes import SHAPES, unigram_base, with_byte_pieces, wordpiece_json

LINES_PER_FILE = 25
EXTRA = ["", " ", "  a  b  ", "▁x", "a▁▁b", "日本語のテキスト", "x\u0301y", "\x00z", "😀 emoji 👍🏽", "\t\n tab"]


def both(text):
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)


def sample_lines():
    return [line for path in UD_FILES for line in ud_lines(path, LINES_PER_FILE)] + EXTRA


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_shapes_match_tokenizers_on_ud_files(shape):
    text = SHAPES[shape]()
    ours, theirs = both(text)
    oracle = oracle_models.MetaspaceModel(text)
    decoder = json.loads(text)["decoder"]
    lines = sample_lines()
    for line, nxt in zip(lines, lines[1:] + lines[:1]):
        want = theirs.encode(line)
        assert_same(ours.encode(line), want, line)
        assert_same(ours.encode(line, nxt), theirs.encode(line, nxt), (line, nxt))
        assert_same(ours.encode(line, nxt, add_special_tokens=False), theirs.encode(line, nxt, add_special_tokens=False),
                    (line, nxt))
        bare = theirs.encode(line, add_special_tokens=False)
        assert_same(ours.encode(line, add_special_tokens=False), bare, line)
        assert oracle.encode(line) == (bare.ids, bare.tokens, bare.offsets, bare.word_ids), line
        for skip in (True, False):
            assert ours.decode(want.ids, skip_special_tokens=skip) == theirs.decode(want.ids, skip_special_tokens=skip)
        vocab_tokens = [theirs.id_to_token(i) for i in bare.ids]  # unknown runs decode as the unk piece
        assert oracle_decoders.decode(decoder, vocab_tokens) == theirs.decode(bare.ids, skip_special_tokens=False)


@pytest.mark.parametrize("shape", ["t5", "llama", "wordpiece"])
def test_pretokenized_input_and_batches(shape):
    """Each pre-tokenized word is a text of its own (so `first` prepends to every one, as in HF)."""
    ours, theirs = both(SHAPES[shape]())
    words = ["Hello", "wörld", " two words", "", "日本", "▁x"]
    assert_same(ours.encode(words, is_pretokenized=True), theirs.encode(words, is_pretokenized=True), words)
    assert_same(ours.encode(words, words[::-1], is_pretokenized=True),
                theirs.encode(words, words[::-1], is_pretokenized=True), words)
    batch = ud_lines(UD_FILES[3], 20)
    for a, b in zip(ours.encode_batch(batch), theirs.encode_batch(batch)):
        assert_same(a, b, "batch")
    assert ours.decode_batch([e.ids for e in theirs.encode_batch(batch)]) == theirs.decode_batch(
        [e.ids for e in theirs.encode_batch(batch)])


@pytest.mark.parametrize("shape", ["xlmr", "llama", "wordpiece"])
def test_added_tokens_around_the_text(shape):
    """Where Metaspace's `first` puts ▁ when an added token comes first, and the vocabulary API."""
    ours, theirs = both(SHAPES[shape]())
    specials = {"xlmr": "<mask>", "llama": "<s>", "wordpiece": "[MASK]"}[shape]
    for text in [f"{specials}hello", f"{specials} hello", f"hello{specials}", f" {specials}  a {specials}b", specials]:
        assert_same(ours.encode(text), theirs.encode(text), text)
        ids = theirs.encode(text).ids
        assert ours.decode(ids, skip_special_tokens=False) == theirs.decode(ids, skip_special_tokens=False)
    assert ours.get_vocab() == theirs.get_vocab()
    assert ours.get_vocab_size() == theirs.get_vocab_size()
    for i in range(0, theirs.get_vocab_size() + 3):
        assert ours.id_to_token(i) == theirs.id_to_token(i)
    for tok in ["<unk>", "[UNK]", "▁the", "##s", "nope", "<0x41>"]:
        assert ours.token_to_id(tok) == theirs.token_to_id(tok)
    assert ours.num_special_tokens_to_add(True) == theirs.num_special_tokens_to_add(True)
    assert ours.num_special_tokens_to_add(False) == theirs.num_special_tokens_to_add(False)


def edited(text, edit):
    cfg = json.loads(text)
    edit(cfg)
    return json.dumps(cfg)


OPTION_EDITS = {
    "wp-prefix-empty": (lambda: wordpiece_json(""), lambda c: None),
    "wp-prefix-@@": (lambda: wordpiece_json("@@"), lambda c: None),
    "wp-max-chars-4": (wordpiece_json, lambda c: c["model"].update(max_input_chars_per_word=4)),
    "wp-max-chars-0": (wordpiece_json, lambda c: c["model"].update(max_input_chars_per_word=0)),
    "wp-max-chars-huge": (wordpiece_json, lambda c: c.update(pre_tokenizer=None) or c["model"].update(
        max_input_chars_per_word=10**9)),
    "wp-no-pre-tokenizer": (wordpiece_json, lambda c: c.update(pre_tokenizer=None)),
    "uni-no-pre-tokenizer": (unigram_base, lambda c: c.update(pre_tokenizer=None)),
    "uni-unk-not-first": (unigram_base, lambda c: c["model"].update(unk_id=0)),
    "uni-some-bytes": (lambda: with_byte_pieces(unigram_base(), every=3), lambda c: None),
    "uni-scores-tied": (unigram_base, lambda c: c["model"].update(vocab=[[p, -1.0] for p, _ in c["model"]["vocab"]])),
    "ms-first": (unigram_base, lambda c: c["pre_tokenizer"].update(prepend_scheme="first")),
    "ms-never": (unigram_base, lambda c: c["pre_tokenizer"].update(prepend_scheme="never")),
    "ms-no-split": (unigram_base, lambda c: c["pre_tokenizer"].update(split=False)),
    "ms-first-no-split": (unigram_base, lambda c: c["pre_tokenizer"].update(split=False, prepend_scheme="first")),
    "ms-replacement-x": (unigram_base, lambda c: c["pre_tokenizer"].update(replacement="x")),
    "ms-legacy-apsp-true": (unigram_base, lambda c: c.update(pre_tokenizer={"type": "Metaspace", "replacement": "▁",
                                                                           "add_prefix_space": True, "str_rep": "▁"})),
    "ms-legacy-apsp-false": (unigram_base, lambda c: c.update(pre_tokenizer={"type": "Metaspace", "replacement": "▁",
                                                                            "add_prefix_space": False,
                                                                            "prepend_scheme": "never"})),
}


@pytest.mark.parametrize("name", sorted(OPTION_EDITS))
def test_model_and_metaspace_options_three_way(name):
    base, edit = OPTION_EDITS[name]
    text = edited(base(), edit)
    ours, theirs = both(text)
    oracle = oracle_models.MetaspaceModel(text)
    for line in [line[:80] for path in UD_FILES for line in ud_lines(path, 8)] + EXTRA:
        assert_same(ours.encode(line), theirs.encode(line), line)
        want = theirs.encode(line, add_special_tokens=False)
        assert oracle.encode(line) == (want.ids, want.tokens, want.offsets, want.word_ids), line


def test_unigram_without_unk_id():
    """No unk_id: known text encodes; an unknown char is an error in both (tokenizers raises Exception)."""
    text = edited(unigram_base(), lambda c: c["model"].update(unk_id=None))
    ours, theirs = both(text)
    assert_same(ours.encode("the cat"), theirs.encode("the cat"), "the cat")
    with pytest.raises(Exception, match="unk_id"):
        theirs.encode("the \U0001F600")
    with pytest.raises(ValueError, match="unk_id"):
        ours.encode("the \U0001F600")
    with pytest.raises(ValueError, match="unk_id"):
        oracle_models.MetaspaceModel(text).encode("the \U0001F600")


def test_missing_unk_token_is_a_value_error_when_needed():
    for base in (wordpiece_json, SHAPES["wordlevel"]):
        text = edited(base(), lambda c: c["model"].update(unk_token="<nope>"))
        ours, theirs = both(text)
        with pytest.raises(Exception):
            theirs.encode("qqqqzzzz \U0001F600")
        with pytest.raises(ValueError, match="<nope>"):
            ours.encode("qqqqzzzz \U0001F600")


def test_metaspace_pre_tokenizer_alone_oracle_vs_tokenizers():
    from tokenizers import pre_tokenizers
    for scheme in ("always", "first", "never"):
        for split in (True, False):
            pt = pre_tokenizers.Metaspace(prepend_scheme=scheme, split=split)
            for line in EXTRA + ud_lines(UD_FILES[4], 10):
                got = [("".join(c for c, _ in w), (w[0][1][0], w[-1][1][1]))
                       for w in oracle_models.metaspace(line, "▁", scheme, split)]
                assert got == pt.pre_tokenize_str(line), (scheme, split, line)


@pytest.mark.parametrize("byte_fallback", [False, True])
def test_unigram_unknown_runs_keep_their_text(byte_fallback):
    """A run of unknown chars fuses with the unk piece itself when the text spells it, keeps its
    text as the token (not "<unk>"), and falls back to bytes only if every byte has a piece."""
    from tokenizers import models
    spec = HFTokenizer(models.Unigram([("a", -1.0), ("<unk>", -2.0), ("<", -3.0), ("<0x78>", -1.0), ("b", -1.5)],
                                      1, byte_fallback)).to_str()
    ours, theirs = both(spec)
    oracle = oracle_models.MetaspaceModel(spec)
    for text in ["a<unk>xb", "<unk>", "x<unk>", "xyz<unk>a", "<<unk>>", "x", "axxb", "yx"]:
        want = theirs.encode(text)
        assert_same(ours.encode(text), want, text)
        assert oracle.encode(text) == (want.ids, want.tokens, want.offsets, want.word_ids), text
        assert ours.decode(want.ids, skip_special_tokens=False) == theirs.decode(want.ids, skip_special_tokens=False)
