"""`to_str`, `save` and `save_pretrained` give tokenizers 0.23.3's and transformers
5.24's bytes, file by file, on every shape, for a tokenizer changed after it was
loaded (added tokens, truncation and padding, a new post-processor) and again
after a round trip (each library loads the folder it saved and saves it again).
The core writes that text in one pass (src/json_document.rs) and `save` writes
the file from the core; a text that pass refuses takes the Python path. Small
files only (the 250k-piece case is benches/bench_loadsave.py's)."""

import json
import os
import stat

import pytest
import transformers
from tokenizers import AddedToken as HFAddedToken
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import processors

import bertpiece
from bertpiece import _core
from auto_shapes import folder
from serialize_shapes import SHAPES

transformers.logging.set_verbosity_error()


def _template(tok):
    """A post-processor other than the file's: `<extra_0> $A` / `<extra_0> $A $B:1`."""
    special = ("<extra_0>", tok.token_to_id("<extra_0>"))
    return processors.TemplateProcessing(single="<extra_0> $A", pair="<extra_0> $A $B:1", special_tokens=[special])


def _change(tok):
    """The same calls on a tokenizers.Tokenizer or a bertpiece.Tokenizer."""
    tok.add_tokens(["zzq", HFAddedToken("Qé", single_word=True, lstrip=True)])
    tok.add_special_tokens(["<extra_0>"])
    tok.enable_truncation(20, stride=2, strategy="only_second", direction="left")
    tok.enable_padding(direction="left", pad_id=1, pad_token="<p>", pad_to_multiple_of=4)
    tok.post_processor = _template(tok)


def _saved(tok, path, pretty):
    tok.save(str(path), pretty=pretty)
    return path.read_bytes()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_changed_tokenizer_and_its_round_trip_are_hfs_bytes(shape, tmp_path):
    text = SHAPES[shape]()
    hf, ours = HFTokenizer.from_str(text), bertpiece.Tokenizer.from_str(text)
    _change(hf)
    _change(ours)
    for round_trip in range(2):
        for pretty in (False, True):
            assert ours.to_str(pretty=pretty) == hf.to_str(pretty=pretty), (round_trip, pretty)
            mine = _saved(ours, tmp_path / f"ours-{pretty}.json", pretty)
            theirs = _saved(hf, tmp_path / f"hf-{pretty}.json", pretty)
            assert mine == theirs, (round_trip, pretty)
            assert mine.decode("utf-8") == ours.to_str(pretty=pretty)
        # each library loads the file it saved
        hf = HFTokenizer.from_file(str(tmp_path / "hf-True.json"))
        ours = bertpiece.Tokenizer.from_file(tmp_path / "ours-True.json")
    assert json.loads(ours.to_str())["post_processor"]["single"][0] == {"SpecialToken": {"id": "<extra_0>", "type_id": 0}}


def _files(path):
    return {name: (path / name).read_bytes() for name in sorted(os.listdir(path))}


def _change_auto(tok):
    tok.add_tokens(["zzq", "Qé"])
    tok.add_tokens(["<extra_0>"], special_tokens=True)
    backend = tok.backend_tokenizer
    backend.enable_truncation(20, stride=2, strategy="only_second", direction="left")
    backend.enable_padding(direction="left", pad_id=1, pad_token="<p>", pad_to_multiple_of=4)
    backend.post_processor = _template(backend)


@pytest.mark.parametrize("shape", ["roberta", "xlmr", "t5", "mpnet", "bert"])
def test_save_pretrained_file_by_file_and_after_a_round_trip(shape, tmp_path):
    hf = transformers.AutoTokenizer.from_pretrained(folder(shape))
    ours = bertpiece.AutoTokenizer.from_pretrained(folder(shape))
    assert isinstance(ours.backend_tokenizer, bertpiece.Tokenizer)
    _change_auto(hf)
    _change_auto(ours)
    for round_trip in range(2):
        hf.save_pretrained(tmp_path / f"hf{round_trip}")
        ours.save_pretrained(tmp_path / f"ours{round_trip}")
        mine, theirs = _files(tmp_path / f"ours{round_trip}"), _files(tmp_path / f"hf{round_trip}")
        assert list(mine) == list(theirs) and "tokenizer.json" in mine, round_trip
        for name in theirs:
            assert mine[name] == theirs[name], (round_trip, name)
        hf = transformers.AutoTokenizer.from_pretrained(tmp_path / f"hf{round_trip}")
        ours = bertpiece.AutoTokenizer.from_pretrained(tmp_path / f"ours{round_trip}")


# A repeated key inside a component: the core's pass refuses it (json.loads keeps the last value).
REPEATED = ('{"model":{"type":"BPE","vocab":{"a":0,"<unk>":1},"merges":[],"unk_token":"<unk>",'
            '"dropout":0.5,"dropout":null}}')


def test_save_of_a_text_the_core_pass_refuses_is_to_strs(tmp_path):
    tok = bertpiece.Tokenizer.from_str(REPEATED)
    with pytest.raises(ValueError, match="repeated key"):
        _core.json_document(REPEATED, "{", ["model"], False)
    for pretty in (False, True):
        assert _saved(tok, tmp_path / "t.json", pretty).decode("utf-8") == tok.to_str(pretty=pretty)
        assert '"dropout":null' in tok.to_str() and tok.to_str(pretty=pretty).count("dropout") == 1
    assert os.listdir(tmp_path) == ["t.json"]


def test_save_keeps_a_files_mode_writes_through_a_link_and_leaves_no_temporary(tmp_path):
    tok = bertpiece.Tokenizer.from_str(SHAPES["t5"]())
    (tmp_path / "target.json").write_text("old", encoding="utf-8")
    os.chmod(tmp_path / "target.json", 0o604)
    os.symlink("target.json", tmp_path / "link.json")
    tok.save(tmp_path / "link.json")
    assert os.path.islink(tmp_path / "link.json")
    assert stat.S_IMODE(os.stat(tmp_path / "target.json").st_mode) == 0o604
    assert (tmp_path / "target.json").read_text(encoding="utf-8") == tok.to_str(pretty=True)
    assert sorted(os.listdir(tmp_path)) == ["link.json", "target.json"]


def test_a_failed_save_leaves_the_file_alone(tmp_path, monkeypatch):
    tok = bertpiece.Tokenizer.from_str(SHAPES["t5"]())
    (tmp_path / "t.json").write_text("old", encoding="utf-8")
    with pytest.raises(FileNotFoundError):
        tok.save(tmp_path / "missing" / "t.json")

    def half_written(text, head, keys, pretty, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(head)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_core, "json_document_to_file", half_written)
    with pytest.raises(OSError, match="No space"):
        tok.save(tmp_path / "t.json")
    assert os.listdir(tmp_path) == ["t.json"] and (tmp_path / "t.json").read_text(encoding="utf-8") == "old"
