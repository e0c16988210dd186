"""bertpiece.oracle_sentencepiece (sentencepiece's rules in readable Python)
against the sentencepiece library and bertpiece.SentencePieceProcessor: three
ways, on UD lines of every language and on hypothesis texts, per model."""

import pytest
from hypothesis import given, settings

from bertpiece.oracle_sentencepiece import SentencePieceOracle
from bpe_shapes import UD_FILES, ud_lines
from spm_models import MODELS, model, pair
from test_sentencepiece_api import texts


def three_way(ref, ours, oracle, text):
    expected = ref.encode(text, out_type=str), ref.encode(text)
    got = oracle.encode(text)
    assert ([p for p, _ in got], [i for _, i in got]) == expected
    assert (ours.encode(text, out_type=str), ours.encode(text)) == expected
    assert oracle.normalize(text) == ref.normalize(text)
    assert oracle.decode(expected[0]) == ref.decode(expected[0]) == ours.decode(expected[0])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_oracle_equals_sentencepiece(name):
    ref, ours = pair(name)
    oracle = SentencePieceOracle(model(name))
    for path in UD_FILES:
        for line in ud_lines(path, 10):
            three_way(ref, ours, oracle, line)

    @settings(max_examples=40, deadline=None, database=None)
    @given(texts)
    def check(text):
        three_way(ref, ours, oracle, text)

    check()


def test_oracle_decodes_stray_bytes_as_sentencepiece():
    ref, ours = pair("bpe_bytes")
    oracle = SentencePieceOracle(model("bpe_bytes"))
    for pieces in [["<0xE3>", "<0x81>", "▁a", "<0xE3>", "<0x81>", "<0x82>"], ["<0xFF>", "<0xC3>"], ["▁x", "<0xF0>", "<0x9F>", "<0x98>"]]:
        assert oracle.decode(pieces) == ref.decode(pieces) == ours.decode(pieces)
