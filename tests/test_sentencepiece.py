"""bertpiece.SentencePieceProcessor against sentencepiece 0.2.3 on the UD
lines of every language (all of them for the plain Unigram and BPE models,
every 4th for the option variants), for a model trained (by sentencepiece)
under each option: ids, pieces, decoded text of both, batch and single calls."""

import pytest

from bpe_shapes import UD_FILES
from spm_models import MODELS, every_ud_line, pair
from tiers import ud_file_tiers


@pytest.mark.parametrize("files", ud_file_tiers(UD_FILES))
@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_ud_line_equals_sentencepiece(name, files):
    ref, ours = pair(name)
    lines = list(every_ud_line(files))[::1 if name in ("unigram", "bpe") else 4]
    ids, pieces = ref.encode(lines), ref.encode(lines, out_type=str)
    assert ours.encode(lines) == ids
    assert ours.encode(lines, out_type=str) == pieces
    assert ours.decode(ids) == ref.decode(ids)
    # Decoding pieces looks each up and then runs the ids' path: a sample of lines covers it.
    assert ours.decode(pieces[::7]) == ref.decode(pieces[::7])
    # The single-text path and the list path are one code path in sentencepiece; check ours are too.
    for line in lines[::97 if name in ("unigram", "bpe") else 25]:
        assert ours.encode(line) == ref.encode(line)
        assert ours.encode_as_pieces(line) == ref.encode_as_pieces(line)
        assert ours.normalize(line) == ref.normalize(line)


@pytest.mark.parametrize("name", ["unigram_custom_rules", "unigram", "bpe_suffix_keep_spaces"])
def test_custom_rules_take_the_longest_match(name):
    ref, ours = pair(name)
    for text in ["the thin tooth", "  the\u3000\u3000ＡＡ  ", "th", "thee", "ｔｈｅ", "oo ooo oooo"]:
        assert ours.normalize(text) == ref.normalize(text)
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str)
    if name == "unigram_custom_rules":
        assert ours.normalize("the thin") == "▁THE▁zin"
