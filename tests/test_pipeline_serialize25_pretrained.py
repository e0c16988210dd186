"""bertpiece.Tokenizer.from_pretrained offline, against tokenizers 0.23.3 (with
HF_HUB_OFFLINE=1) on a fake Hugging Face cache in tmp_path: a cached hub id
loads from refs/<revision> -> snapshots/<commit>/tokenizer.json in both; what
HF cannot find, bertpiece refuses with FileNotFoundError (as HF's
LocalEntryNotFoundError is one) saying it does not download and where it
looked; a path to a tokenizer.json file is refused as in HF; a local folder
holding tokenizer.json loads (HF refuses it: a documented extension)."""

import os

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from serialize_shapes import SHAPES

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    text = SHAPES["wordlevel"]()
    repo = tmp_path / "hub" / "models--org--name"
    (repo / "snapshots" / COMMIT).mkdir(parents=True)
    (repo / "snapshots" / COMMIT / "tokenizer.json").write_text(text, encoding="utf-8")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)
    (repo / "refs" / "v1").write_text(COMMIT + "\n")
    (repo / "refs" / "gone").write_text("f" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # huggingface_hub reads the environment once, when imported.
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    return tmp_path, text


def outcome(load):
    try:
        return ("ok", load().to_str())
    except FileNotFoundError:
        return ("not found",)
    except ValueError:
        return ("bad id",)


@pytest.mark.parametrize("identifier,revision", [
    ("org/name", "main"), ("org/name", "v1"), ("org/name", COMMIT), ("org/name", "gone"), ("org/name", "dev"),
    ("org/other", "main"), ("name", "main"), ("bad id!", "main"), ("a/b/c", "main"),
])
def test_hub_ids_resolve_in_the_local_cache_as_in_tokenizers(cache, identifier, revision):
    ours = outcome(lambda: bertpiece.Tokenizer.from_pretrained(identifier, revision=revision))
    theirs = outcome(lambda: HFTokenizer.from_pretrained(identifier, revision=revision))
    assert ours == theirs


def test_hf_home_and_default_cache_locations(cache, monkeypatch):
    tmp_path, text = cache
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # $HF_HOME/hub
    assert bertpiece.Tokenizer.from_pretrained("org/name").to_str() == HFTokenizer.from_str(text).to_str()
    monkeypatch.delenv("HF_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError) as e:
        bertpiece.Tokenizer.from_pretrained("org/name")
    assert "does not download" in str(e.value) and str(tmp_path / "nowhere" / "huggingface" / "hub") in str(e.value)


def test_missing_entry_says_where_it_looked(cache):
    tmp_path, _ = cache
    with pytest.raises(FileNotFoundError) as e:
        bertpiece.Tokenizer.from_pretrained("org/name", revision="dev")
    assert "does not download" in str(e.value) and str(tmp_path / "hub" / "models--org--name" / "refs" / "dev") in str(e.value)


def test_a_folder_loads_a_file_path_is_refused(cache, monkeypatch):
    tmp_path, text = cache
    folder = tmp_path / "saved"
    folder.mkdir()
    HFTokenizer.from_str(text).save(str(folder / "tokenizer.json"))
    monkeypatch.chdir(tmp_path)
    for given in (str(folder), "saved"):
        assert bertpiece.Tokenizer.from_pretrained(given).to_str() == HFTokenizer.from_str(text).to_str()
    # The file itself: HF reads it as a repo id and does not find it; bertpiece says why.
    with pytest.raises(FileNotFoundError):
        HFTokenizer.from_pretrained("saved/tokenizer.json")
    with pytest.raises(FileNotFoundError) as e:
        bertpiece.Tokenizer.from_pretrained("saved/tokenizer.json")
    assert "from_file" in str(e.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="holds no tokenizer.json"):
        bertpiece.Tokenizer.from_pretrained("empty")


def test_bad_arguments(cache):
    with pytest.raises(TypeError):
        bertpiece.Tokenizer.from_pretrained(5)
    for revision in ("../../etc", "", "/abs"):
        with pytest.raises(ValueError):
            bertpiece.Tokenizer.from_pretrained("org/name", revision=revision)
