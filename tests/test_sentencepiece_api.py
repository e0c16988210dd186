"""bertpiece.SentencePieceProcessor's API against sentencepiece's: the
options of encode and decode, the vocabulary calls, pickling, sequences of
calls, the exception types of bad arguments, and hypothesis texts (NUL,
control chars, combining marks, every whitespace, long runs without spaces,
emoji, unknown scripts) on several models."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spm_models import pair

# Every White_Space char, zero-width and format chars, controls, combining marks, and pieces of the models' rules.
WHITESPACE = "\t\n\x0b\x0c\r \x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
ODD = "\x00\x01\x7f\u200b\u200c\u200d\u2060\ufeff\u00ad\u0301\u0308\u20dd\u0f00\U0001f600\U0001f44d\U0001f3fd\u16a0\ua9b2\U00010400\ufffd\u2581"
LETTERS = "abcdeghinorstuvwxyzTHEＡｔ0123456789.,-'éßİıﬁ한국語かなالعربيةру"
SYMBOLS = ["<sep>", "abc", "ing", "<cls>", "<s>", "</s>", "<unk>", "the", "oo", "▁the"]
texts = st.lists(st.one_of(st.text(alphabet=WHITESPACE + ODD + LETTERS, max_size=12), st.sampled_from(SYMBOLS)),
                 max_size=8).map("".join)
FUZZED = ["unigram", "bpe", "unigram_bytes", "bpe_bytes", "unigram_symbols", "bpe_symbols", "unigram_custom_rules",
          "unigram_identity", "unigram_suffix", "bpe_suffix_keep_spaces", "bpe_no_dummy_digits", "unigram_nfkc_cf"]


@pytest.mark.parametrize("name", FUZZED)
def test_hypothesis_texts_equal_sentencepiece(name):
    ref, ours = pair(name)

    @settings(max_examples=80, deadline=None, database=None)
    @given(texts)
    def check(text):
        ids = ref.encode(text)
        assert ours.encode(text) == ids
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str)
        assert ours.decode(ids) == ref.decode(ids)
        assert ours.normalize(text) == ref.normalize(text)

    check()


@pytest.mark.parametrize("name", ["unigram", "bpe_bytes"])
def test_long_runs_without_spaces(name):
    ref, ours = pair(name)
    for text in ["x" * 5000, "ab" * 3000, "漢" * 4000, "\U0001f600" * 1000, "\u0f00" * 2000, " " * 3000 + "a"]:
        assert ours.encode(text) == ref.encode(text)
        assert ours.decode(ref.encode(text)) == ref.decode(ref.encode(text))


@pytest.mark.parametrize("name", ["unigram", "bpe", "unigram_bytes", "unigram_symbols"])
def test_encode_options(name):
    ref, ours = pair(name)
    lines = ["Hello world.", "", "  ", "x\u0f00\u0f01y z", "<sep>abc<cls>ing the"]
    for kwargs in [dict(add_bos=True), dict(add_eos=True), dict(reverse=True), dict(add_bos=True, add_eos=True, reverse=True),
                   dict(emit_unk_piece=True), dict(out_type=bytes), dict(out_type=str, emit_unk_piece=True, reverse=True),
                   dict(num_threads=1), dict(num_threads=2), dict(return_type=str), dict(out_type=str, add_bos=True)]:
        assert ours.encode(lines, **kwargs) == ref.encode(lines, **kwargs), kwargs
        for line in lines:
            assert ours.encode(line, **kwargs) == ref.encode(line, **kwargs), (line, kwargs)
    for a, b in zip(ours.encode(lines, out_type="numpy"), ref.encode(lines, out_type="numpy")):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert ours.encode_as_ids(lines[0]) == ref.encode_as_ids(lines[0])
    assert ours.EncodeAsPieces(lines) == ref.EncodeAsPieces(lines)
    assert ours.tokenize(lines[0]) == ref.tokenize(lines[0])
    assert ours.encode(b"Hello w\xc3\xb6rld", out_type=str) == ref.encode(b"Hello w\xc3\xb6rld", out_type=str)


def test_constructor_defaults_apply_to_every_call():
    from spm_models import model

    import bertpiece
    import sentencepiece as spm

    kwargs = dict(add_bos=True, add_eos=True, reverse=True, out_type=str, emit_unk_piece=True)
    ref = spm.SentencePieceProcessor(model_proto=model("unigram"), **kwargs)
    ours = bertpiece.SentencePieceProcessor(model_proto=model("unigram"), **kwargs)
    for text in ["a b c", "x\u0f00y", ["one", "two \u0f01"]]:
        assert ours.encode(text) == ref.encode(text)
        assert ours.encode(text, out_type=int, reverse=False) == ref.encode(text, out_type=int, reverse=False)


@pytest.mark.parametrize("name", ["unigram", "bpe_bytes", "unigram_symbols"])
def test_decode_forms(name):
    ref, ours = pair(name)
    ids = ref.encode(["Hello world", "x\u0f00y", ""])
    pieces = ref.encode(["Hello world", "x\u0f00y", ""], out_type=str)
    n = len(ref)
    for value in [ids, ids[0], ids[2], pieces, pieces[0], [["▁a"], []], [[], ["▁a"]], 5, None, "", "▁hello",
                  ["▁a", "<unk>", "zz▁q", "<s>", "▁b", "<0x41>", "<0xE3>", "<0x81>", "<0x82>", "<0xFF>", "c"],
                  list(range(n)), [n - 1, 0, 1, 2, n - 1], np.array(ids[0], dtype=np.int64),
                  [b"\xe2\x96\x81a", b"b"]]:
        assert ours.decode(value) == ref.decode(value), value
        assert ours.decode(value, out_type=bytes) == ref.decode(value, out_type=bytes), value
    assert ours.decode_ids(ids[0]) == ref.decode_ids(ids[0])
    assert ours.DecodePieces(pieces[0]) == ref.DecodePieces(pieces[0])
    assert ours.detokenize(ids) == ref.detokenize(ids)


@pytest.mark.parametrize("name", ["unigram", "bpe_bytes", "unigram_symbols", "bpe_suffix_keep_spaces"])
def test_vocabulary_calls(name):
    ref, ours = pair(name)
    n = len(ref)
    assert (len(ours), ours.vocab_size(), ours.get_piece_size(), ours.piece_size()) == (n, n, n, n)
    ids = list(range(n))
    for method in ["id_to_piece", "get_score", "is_unknown", "is_control", "is_unused", "is_byte",
                   "IdToPiece", "GetScore", "IsUnknown", "IsControl", "IsUnused", "IsByte"]:
        assert getattr(ours, method)(ids) == getattr(ref, method)(ids), method
        assert getattr(ours, method)(n - 1) == getattr(ref, method)(n - 1), method
    pieces = ref.id_to_piece(ids) + ["zzzz", "", "<pad>", "<0x41>", "▁"]
    assert ours.piece_to_id(pieces) == ref.piece_to_id(pieces)
    assert [ours[p] for p in pieces] == [ref[p] for p in pieces]
    assert ours.piece_to_id(b"<s>") == ref.piece_to_id(b"<s>")
    for method in ["unk_id", "bos_id", "eos_id", "pad_id"]:
        assert getattr(ours, method)() == getattr(ref, method)(), method
    assert ours.serialized_model_proto() == ref.serialized_model_proto()


def test_special_ids_as_the_trainer_set_them():
    """pad on, bos off: bos_id() is -1 and add_bos is refused as sentencepiece refuses it."""
    import io

    import bertpiece
    import sentencepiece as spm
    from bpe_shapes import training_sample

    blob = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(training_sample()[:300]), model_writer=blob, vocab_size=600,
                                   minloglevel=2, num_threads=1, pad_id=3, bos_id=-1, unk_piece="[UNK]",
                                   eos_piece="[END]", character_coverage=0.98)
    ref = spm.SentencePieceProcessor(model_proto=blob.getvalue())
    ours = bertpiece.SentencePieceProcessor(model_proto=blob.getvalue())
    assert [ours.unk_id(), ours.bos_id(), ours.eos_id(), ours.pad_id()] == [ref.unk_id(), ref.bos_id(), ref.eos_id(), ref.pad_id()]
    assert ours.encode("a b", add_eos=True, out_type=str) == ref.encode("a b", add_eos=True, out_type=str)
    assert ours.decode(ref.encode("\u0f00 x")) == ref.decode(ref.encode("\u0f00 x"))
    for call in [lambda sp: sp.encode("a", add_bos=True), lambda sp: sp.encode(["a"], add_bos=True, out_type=str)]:
        with pytest.raises(ValueError):
            call(ref)
        with pytest.raises(ValueError):
            call(ours)


def _raises_same(ref, ours, call):
    with pytest.raises(Exception) as a:
        call(ref)
    with pytest.raises(Exception) as b:
        call(ours)
    assert isinstance(b.value, type(a.value)), (type(a.value), type(b.value))


def test_bad_arguments_raise_sentencepieces_exception_types():
    ref, ours = pair("unigram")
    n = len(ref)
    for call in [lambda sp: sp.encode(123), lambda sp: sp.encode(("a", "b")), lambda sp: sp.encode(["a", 1]),
                 lambda sp: sp.encode("a", out_type="foo"), lambda sp: sp.encode(["a"], num_threads="2"),
                 lambda sp: sp.encode("a", out_type=str, return_type=int), lambda sp: sp.encode("a", return_bytes=True),
                 lambda sp: sp.encode("a", enable_sampling=True, nbest_size=1),
                 lambda sp: sp.decode([n]), lambda sp: sp.decode([-1]), lambda sp: sp.decode([[1], [n]]),
                 lambda sp: sp.decode([5, "a"]), lambda sp: sp.decode([5.0]), lambda sp: sp.decode([1], num_threads=1.5),
                 lambda sp: sp.id_to_piece(n), lambda sp: sp.id_to_piece(-1), lambda sp: sp.id_to_piece("a"),
                 lambda sp: sp.get_score(n), lambda sp: sp.is_unknown(n), lambda sp: sp.is_control([0, n]),
                 lambda sp: sp.piece_to_id(3), lambda sp: sp.load(), lambda sp: sp.Load(model_file="x", model_proto=b"x"),
                 lambda sp: type(sp)().encode("a"), lambda sp: type(sp)(model_file="/nonexistent/m.model"),
                 lambda sp: type(sp)(model_proto=b"\x01\x02garbage"), lambda sp: type(sp).from_file("x", model_file="y"),
                 lambda sp: sp.encode("a\ud800b"), lambda sp: sp.encode(["a\ud800b"], out_type=str),
                 lambda sp: sp.decode(["a\ud800"]), lambda sp: sp.piece_to_id(["\ud800"]), lambda sp: sp.decode([2**70]),
                 lambda sp: sp.id_to_piece(2**70)]:
        _raises_same(ref, ours, call)


def test_refused_options_name_themselves():
    _, ours = pair("unigram")
    for call, name in [(lambda: ours.encode("a", enable_sampling=True), "enable_sampling"),
                       (lambda: ours.sample_encode_as_ids("a", -1, 0.1), "SampleEncodeAsIds"),
                       (lambda: ours.nbest_encode_as_pieces("a", 3), "NBestEncodeAsPieces"),
                       (lambda: ours.encode("a", out_type="proto"), "proto"),
                       (lambda: ours.encode("a", out_type="offset_mapping"), "offset_mapping")]:
        with pytest.raises(NotImplementedError, match=name):
            call()


def test_pickle_and_sequences_of_calls():
    ref, ours = pair("bpe_symbols")
    lines = ["Hello <sep> world", "x\u0f00y", "1234 abc"]
    before = ours.encode(lines, out_type=str)
    ours.encode("warm up", add_bos=True, reverse=True)
    ours.decode(ours.encode(lines))
    assert ours.encode(lines, out_type=str) == before == ref.encode(lines, out_type=str)
    custom = type(ours)(model_proto=ours.serialized_model_proto(), add_eos=True, out_type=str)
    for sp in [ours, custom]:
        back = pickle.loads(pickle.dumps(sp))
        assert back.encode(lines) == sp.encode(lines)
        assert back.decode(back.encode(lines, out_type=int)) == sp.decode(sp.encode(lines, out_type=int))
    assert pickle.loads(pickle.dumps(custom)).encode("a") == ref.encode("a", add_eos=True, out_type=str)
    # Loading another model into the same object replaces everything.
    other_ref, other = pair("unigram")
    ours.load(model_proto=other.serialized_model_proto())
    assert ours.encode(lines) == other_ref.encode(lines) and len(ours) == len(other_ref)
