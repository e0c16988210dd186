"""``bertpiece.SentencePieceTrainer`` against sentencepiece 0.2.3's own trainer
on the same UD text and options: the library loads every model written and
encodes UD lines with it, normalizing as with sentencepiece's model; the spec
fields, meta pieces and .vocab format are sentencepiece's; held-out tokens per
byte within the issue's 1 % of sentencepiece's trainer; transformers' XLM-R
and T5 tokenizers load the .model; options not implemented are refused."""

import os
import pathlib

import pytest
import sentencepiece as spm
import transformers
from sentencepiece import sentencepiece_model_pb2 as pb

import bertpiece
from shared_cache import session_cached

DATA = pathlib.Path(__file__).parent / "data"


def lines(lang):
    return (DATA / f"ud-{lang}.txt").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def corpora(shared_cache_dir):
    """Per language: the training file (first 80 % of the lines) and the held-out lines. The files are in the
    session's shared cache (the same path for every xdist worker: the trainers record it in the model)."""
    root = shared_cache_dir / "spm-trainer"
    root.mkdir(exist_ok=True)
    out = {}
    for lang in ("en", "de", "ru"):
        text = lines(lang)
        cut = len(text) * 4 // 5
        path = root / f"{lang}.txt"
        if not path.is_file():  # the same bytes from any worker: written whole, then renamed
            part = root / f"{lang}.txt.{os.getpid()}"
            part.write_text("\n".join(text[:cut]) + "\n", encoding="utf-8")
            os.replace(part, path)
        out[lang] = (str(path), text[cut:])
    return root, out


CASES = {
    "unigram-en": ("en", dict(vocab_size=1000)),
    "unigram-de": ("de", dict(vocab_size=1000, character_coverage=1.0, control_symbols=["<c>"], pad_id=3)),
    "bpe-ru": ("ru", dict(vocab_size=800, model_type="bpe", user_defined_symbols=["<x>", "<y>"], byte_fallback=True,
                          split_digits=True, bos_id=-1, normalization_rule_name="nmt_nfkc_cf")),
    "unigram-en-identity": ("en", dict(vocab_size=600, normalization_rule_name="identity", add_dummy_prefix=False,
                                       remove_extra_whitespaces=False, unk_id=2, eos_id=0)),
}


@session_cached
def train_case(root, case):
    """One case trained once by sentencepiece and once by bertpiece, once per session (whichever worker needs it
    first): the (ours, theirs) model prefixes, under the session's shared cache."""
    lang, options = CASES[case]
    path = os.path.join(root, f"{lang}.txt")
    ours, ref = (os.path.join(root, side, case, "m") for side in ("ours", "ref"))
    for prefix in (ours, ref):
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
    bertpiece.SentencePieceTrainer.train(input=path, model_prefix=ours, **options)
    spm.SentencePieceTrainer.train(input=path, model_prefix=ref, minloglevel=2, **options)
    return ours, ref


@pytest.fixture(scope="module")
def trained(corpora):
    """{case: (ours, theirs) prefixes}, each case trained when a test first asks for it."""
    root = str(corpora[0])

    class Lazy(dict):
        def __missing__(self, case):
            self[case] = train_case(root, case)
            return self[case]

    return Lazy()


def proto(prefix):
    m = pb.ModelProto()
    m.ParseFromString(pathlib.Path(prefix + ".model").read_bytes())
    return m


@pytest.mark.parametrize("case", CASES)
def test_specs_meta_pieces_and_vocab_file_as_sentencepiece(trained, case):
    ours, ref = trained[case]
    a, b = proto(ours), proto(ref)
    spec_a = {f.name: v for f, v in a.trainer_spec.ListFields()}
    spec_b = {f.name: v for f, v in b.trainer_spec.ListFields()}
    assert spec_a.pop("model_prefix") == ours and spec_b.pop("model_prefix") == ref
    assert spec_a == spec_b
    assert a.normalizer_spec.SerializeToString() == b.normalizer_spec.SerializeToString()
    assert [f.name for f, _ in a.ListFields()] == [f.name for f, _ in b.ListFields()]
    assert len(a.pieces) == len(b.pieces) == CASES[case][1]["vocab_size"]
    meta = [(k, p.piece, p.type) for k, p in enumerate(b.pieces) if p.type != 1]
    assert [(k, p.piece, p.type) for k, p in enumerate(a.pieces) if p.type != 1] == meta
    assert all(p.score == 0.0 for p in a.pieces if p.type != 1)
    vocab = pathlib.Path(ours + ".vocab").read_text(encoding="utf-8").splitlines()
    assert [line.split("\t")[0] for line in vocab] == [p.piece for p in a.pieces]
    # the score column written as sentencepiece writes it: compare on the pieces both have
    ref_scores = dict(line.split("\t") for line in pathlib.Path(ref + ".vocab").read_text(encoding="utf-8").splitlines())
    ref_values = {p.piece: p.score for p in b.pieces}
    ours_scores = dict(line.split("\t") for line in vocab)
    for p in a.pieces[:40]:
        assert ours_scores[p.piece] == (f"{p.score:g}" if p.piece not in ref_values or ref_values[p.piece] != p.score
                                        else ref_scores[p.piece])


@pytest.mark.parametrize("case", CASES)
def test_sentencepiece_loads_and_encodes_as_it_normalizes(trained, corpora, case):
    ours, ref = (spm.SentencePieceProcessor(model_file=p + ".model") for p in trained[case])
    lang = CASES[case][0]
    held_out = corpora[1][lang][1][:150]
    for line in held_out:
        ids = ours.encode(line)
        assert all(0 <= i < ours.get_piece_size() for i in ids)
        ref_ids = ref.encode(line)
        if ours.unk_id() not in ids and ref.unk_id() not in ref_ids:
            # the same normalized text back: the normalizer spec and the pieces' surface are sentencepiece's
            assert ours.decode(ids) == ref.decode(ref_ids)


@pytest.mark.parametrize("case", ["unigram-en", "unigram-de", "bpe-ru"])
def test_held_out_tokens_per_byte_within_one_percent_of_sentencepiece(trained, corpora, case):
    ours, ref = (spm.SentencePieceProcessor(model_file=p + ".model") for p in trained[case])
    held_out = corpora[1][CASES[case][0]][1]
    ours_n = sum(len(ours.encode(line)) for line in held_out)
    ref_n = sum(len(ref.encode(line)) for line in held_out)
    assert ours_n <= ref_n * 1.01, (ours_n, ref_n)


def test_transformers_sentencepiece_tokenizers_load_the_model(trained, tmp_path):
    prefix = trained["unigram-en"][0]
    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    text = "Hello world, this is the 1st test of the tokenizer."
    for cls, name in ((transformers.XLMRobertaTokenizer, "sentencepiece.bpe.model"),
                      (transformers.T5Tokenizer, "spiece.model")):
        folder = tmp_path / cls.__name__
        folder.mkdir()
        (folder / name).write_bytes(pathlib.Path(prefix + ".model").read_bytes())
        tok = cls.from_pretrained(str(folder))
        assert tok.tokenize(text) == sp.encode(text, out_type=str)
        assert tok.convert_tokens_to_ids(tok.tokenize(text))[:5] == [
            tok.convert_tokens_to_ids(p) for p in sp.encode(text, out_type=str)[:5]]


def test_string_form_writes_the_same_files(corpora, tmp_path):
    path = corpora[1]["en"][0]
    bertpiece.SentencePieceTrainer.train(input=path, model_prefix=str(tmp_path / "a"), vocab_size=400,
                                         user_defined_symbols=["<x>", "<y>"], add_dummy_prefix=False)
    bertpiece.SentencePieceTrainer.train(f"--input={path} --model_prefix={tmp_path / 'b'} --vocab_size=400 "
                                         "--user_defined_symbols=<x>,<y> --add_dummy_prefix=false")
    a, b = proto(str(tmp_path / "a")), proto(str(tmp_path / "b"))
    a.trainer_spec.ClearField("model_prefix")
    b.trainer_spec.ClearField("model_prefix")
    assert a.SerializeToString() == b.SerializeToString()
    assert (tmp_path / "a.vocab").read_text(encoding="utf-8") == (tmp_path / "b.vocab").read_text(encoding="utf-8")


@pytest.mark.parametrize("options, message", [
    (dict(input_sentence_size=100), "input_sentence_size"),
    (dict(model_type="word"), "model_type"),
    (dict(normalization_rule_tsv="x.tsv"), "normalization_rule_tsv"),
    (dict(split_by_unicode_script=False, no_such_option=1), "no_such_option, split_by_unicode_script"),
    (dict(normalization_rule_name="nfkc_ja"), "normalization_rule_name"),
    (dict(unk_id=-1), "unk_id"),
    (dict(vocab_size=20), "vocab_size=20"),
    (dict(vocab_size=60000), "vocab_size=60000 is too high"),
])
def test_options_not_implemented_and_bad_values_are_value_errors(corpora, tmp_path, options, message):
    path = corpora[1]["en"][0]
    with pytest.raises(ValueError, match=message):
        bertpiece.SentencePieceTrainer.train(input=path, model_prefix=str(tmp_path / "m"), **options)
    assert list(tmp_path.iterdir()) == []


def test_bad_input_leaves_no_partial_files(tmp_path):
    prefix = str(tmp_path / "m")
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        bertpiece.SentencePieceTrainer.train(input=str(tmp_path / "missing.txt"), model_prefix=prefix, vocab_size=50)
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n\t\n", encoding="utf-8")
    with pytest.raises(ValueError, match="holds no text"):
        bertpiece.SentencePieceTrainer.train(input=str(empty), model_prefix=prefix, vocab_size=50)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xff\n")
    with pytest.raises(ValueError, match="bad.txt: line 2 is not valid UTF-8"):
        bertpiece.SentencePieceTrainer.train(input=str(bad), model_prefix=prefix, vocab_size=50)
    good = tmp_path / "good.txt"
    good.write_text("\n".join(lines("en")[:200]) + "\n", encoding="utf-8")
    with pytest.raises(OSError):
        bertpiece.SentencePieceTrainer.train(input=str(good), model_prefix=str(tmp_path / "no-dir" / "m"),
                                             vocab_size=200)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt", "empty.txt", "good.txt"]
