"""bertpiece.Tokenizer's drop-in gaps that transformers' tokenizer objects reach
(issue 26), against tokenizers 0.23.3 on the same file and input: Encoding's
alignment methods (n_sequences, token_to_*, word_to_*, char_to_*), the
`encode_special_tokens` flag, and assigning tokenizers' own component objects
(transformers assigns its TemplateProcessing to the backend)."""

import copy
import pickle

import pytest
import tokenizers
from tokenizers import processors

import bertpiece
from bpe_shapes import UD_FILES, roberta_json, ud_lines
from models_shapes import t5_json, wordpiece_json, xlmr_json

SHAPES = {"roberta": roberta_json, "xlmr": xlmr_json, "t5": t5_json, "wordpiece": wordpiece_json}


def both(shape):
    text = SHAPES[shape]()
    return tokenizers.Tokenizer.from_str(text), bertpiece.Tokenizer.from_str(text)


def lines(n=2):
    return [line for path in UD_FILES for line in ud_lines(path, n)]


def answers(enc, text_lengths):
    """Every alignment query on every index (and some past the end), as a list."""
    n = len(enc.ids)
    out = [enc.n_sequences]
    for t in range(n + 2):
        out.append(("t", t, enc.token_to_sequence(t), enc.token_to_chars(t), enc.token_to_word(t)))
    words = max([w for w in enc.word_ids if w is not None], default=0)
    for seq in range(3):
        for w in range(words + 2):
            out.append(("w", seq, w, enc.word_to_tokens(w, seq), enc.word_to_chars(w, seq), enc.word_to_tokens(w)))
        for c in range(max(text_lengths) + 2):
            out.append(("c", seq, c, enc.char_to_token(c, seq), enc.char_to_word(c, seq), enc.char_to_token(c)))
    return out


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("special", [True, False])
def test_alignment_methods_equal_tokenizers(shape, special):
    hf, ours = both(shape)
    texts = lines(1)
    for a, b in zip(texts, texts[1:] + texts[:1]):
        for args in ((a,), (a, b)):
            want = hf.encode(*args, add_special_tokens=special)
            got = ours.encode(*args, add_special_tokens=special)
            assert answers(got, [len(x) for x in args]) == answers(want, [len(x) for x in args]), args
    # truncated with overflow, padded: the ranges move
    for t in (hf, ours):
        t.enable_truncation(12, stride=3)
        t.enable_padding(length=16)
    for args in ((texts[0],), (texts[0], texts[5])):
        want, got = hf.encode(*args), ours.encode(*args)
        assert answers(got, [len(x) for x in args]) == answers(want, [len(x) for x in args])
        assert [answers(o, [len(x) for x in args]) for o in got.overflowing] == \
            [answers(o, [len(x) for x in args]) for o in want.overflowing]
    empty_pair = (hf.encode(texts[0], ""), ours.encode(texts[0], ""))
    assert answers(empty_pair[1], [len(texts[0])]) == answers(empty_pair[0], [len(texts[0])])


def test_negative_indexes_are_refused_as_tokenizers_refuses_them():
    hf, ours = both("roberta")
    for enc in (hf.encode("a b"), ours.encode("a b")):
        for call in (lambda: enc.token_to_word(-1), lambda: enc.char_to_token(-1), lambda: enc.word_to_tokens(-1)):
            with pytest.raises(OverflowError):
                call()


@pytest.mark.parametrize("shape", ["roberta", "xlmr"])
def test_encode_special_tokens(shape):
    hf, ours = both(shape)
    texts = ["a <s> b</s><mask> c <mask>d", "<s><s></s>", "x <unk> <pad>"] + lines(1)
    for t in (hf, ours):
        t.add_tokens(["zq", tokenizers.AddedToken("<sp2>", special=True)])
    for flag in (False, True, False, True):
        hf.encode_special_tokens = ours.encode_special_tokens = flag
        assert ours.encode_special_tokens is flag
        for text in texts + ["zq<sp2>zq"]:
            want, got = hf.encode(text, "b <mask>"), ours.encode(text, "b <mask>")
            assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets), (flag, text)
        assert [e.ids for e in ours.encode_batch(texts)] == [e.ids for e in hf.encode_batch(texts)]
    # kept by add_tokens and by a component change; not by pickling or copying (as in HF)
    for t in (hf, ours):
        t.add_tokens(["qq"])
        t.post_processor = processors.ByteLevel() if t is hf else bertpiece.processors.ByteLevel()
    assert ours.encode_special_tokens is hf.encode_special_tokens is True
    assert ours.encode("a <s> qq").ids == hf.encode("a <s> qq").ids
    assert pickle.loads(pickle.dumps(ours)).encode_special_tokens is pickle.loads(pickle.dumps(hf)).encode_special_tokens
    assert copy.deepcopy(ours).encode_special_tokens is copy.deepcopy(hf).encode_special_tokens
    with pytest.raises(TypeError, match="'int' object is not an instance of 'bool'"):
        ours.encode_special_tokens = 1
    with pytest.raises(TypeError):
        hf.encode_special_tokens = 1


def test_tokenizers_components_can_be_assigned():
    hf, ours = both("xlmr")
    template = processors.TemplateProcessing(single="<s>:0 $A:0 </s>:0", pair="<s>:0 $A:0 </s>:0 $B:1 </s>:1",
                                             special_tokens=[("<s>", hf.token_to_id("<s>")),
                                                             ("</s>", hf.token_to_id("</s>"))])
    hf.post_processor = template
    ours.post_processor = template  # what transformers' update_post_processor does
    assert isinstance(ours.post_processor, bertpiece.processors.TemplateProcessing)
    assert ours.to_str() == hf.to_str()
    for a, b in zip(lines(1), lines(1)[::-1]):
        want, got = hf.encode(a, b), ours.encode(a, b)
        assert (got.ids, got.type_ids) == (want.ids, want.type_ids)
    with pytest.raises(TypeError, match="not an instance of 'PostProcessor'"):
        ours.post_processor = tokenizers.normalizers.Lowercase()
