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


@pytest.mark.parametrize("remove_extra_whitespaces", [True, False])
def test_rules_starting_with_a_space(remove_extra_whitespaces, tmp_path):
    # The normalizer copies a space before an ASCII byte at once unless a rule
    # starts with a space (here " a" -> "B", "  " -> "~"): then the longest match decides.
    import io

    import sentencepiece as spm

    import bertpiece

    rules = tmp_path / "rules.tsv"
    rules.write_text("20 61\t42\n20 20\t7E\n74 68\t7A\n")
    blob = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(every_ud_line()[:400]), model_writer=blob, vocab_size=300,
                                   minloglevel=2, num_threads=1, normalization_rule_tsv=str(rules),
                                   remove_extra_whitespaces=remove_extra_whitespaces)
    ref, ours = spm.SentencePieceProcessor(model_proto=blob.getvalue()), bertpiece.SentencePieceProcessor(model_proto=blob.getvalue())
    texts = [" a  b   a", "x a\u00e9 a", " ab ", "  ", " a", "a ", "the a\tb  \u3000a", *every_ud_line()[::200]]
    for text in texts:
        assert ours.normalize(text) == ref.normalize(text), text
    assert ours.encode(texts) == ref.encode(texts)
