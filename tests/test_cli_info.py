"""`bertpiece info`: text and --json output against the package's own data."""

import json
import os
import subprocess
import sys
import unicodedata
from importlib import metadata

import pytest

import bertpiece
from bertpiece.cli import main


def test_json(capsys, monkeypatch):
    monkeypatch.setenv("BERTPIECE_NUM_THREADS", "3")
    assert main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["version"] == bertpiece.__version__
    assert info["unicode_version"] == bertpiece.UNICODE_VERSION
    assert info["interpreter_unicode_version"] == unicodedata.unidata_version
    assert info["BERTPIECE_NUM_THREADS"] == "3"
    assert info["threads_available"] == len(os.sched_getaffinity(0))
    assert set(info["models"]) == set(bertpiece.PRETRAINED)
    for name, model in info["models"].items():
        entry = bertpiece.PRETRAINED[name]
        assert model["vocab"] == bertpiece.vocab_path(name) and os.path.isfile(model["vocab"])
        assert model["do_lower_case"] == entry.do_lower_case
        assert model["hf_do_lower_case"] == entry.hf_do_lower_case
    refs = info["references"]
    assert refs["transformers"]["version"] == metadata.version("transformers")
    assert refs["tokenizers"]["version"] == metadata.version("tokenizers")
    assert refs["google"]["version"] == metadata.version("bert-tensorflow")
    assert refs["oracle"]["version"] == bertpiece.__version__


def test_text(capsys, monkeypatch):
    monkeypatch.delenv("BERTPIECE_NUM_THREADS", raising=False)
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"bertpiece {bertpiece.__version__}\n")
    assert f"Unicode {bertpiece.UNICODE_VERSION} " in out
    assert "BERTPIECE_NUM_THREADS" not in out
    for name, entry in bertpiece.PRETRAINED.items():
        [line] = [row for row in out.splitlines() if row.split()[:1] == [name]]
        casing = line.split(None, 1)[1]
        assert casing.startswith("uncased" if entry.do_lower_case else "cased")
        assert ("/" in casing) is (entry.do_lower_case != entry.hf_do_lower_case)


@pytest.mark.parametrize("module, reference, package", [
    ("bert.tokenization", "google", "bert-tensorflow"), ("absl.flags", "google", "absl-py"),
    ("six", "google", "six"), ("transformers", "transformers", "transformers"),
    ("tokenizers", "tokenizers", "tokenizers"), (None, None, None),
])
def test_info_and_parity_agree_on_what_is_available(capsys, monkeypatch, tmp_path, module, reference, package):
    """One check for both (references.missing_package): with absl-py or six missing, info used
    to list bert-tensorflow as installed (its metadata) while parity could not load it."""
    from bertpiece import references

    if module is not None:
        monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    references.load_google.cache_clear()
    corpus = tmp_path / "c.txt"
    corpus.write_text("Hello world\n", encoding="utf-8")
    try:
        assert main(["info", "--json"]) == 0
        listed = json.loads(capsys.readouterr().out)["references"]
        assert main(["info"]) == 0
        text = capsys.readouterr().out
        for name, entry in listed.items():
            rc = main(["parity", str(corpus), "--reference", name, "--quiet"])
            err = capsys.readouterr().err
            assert entry["available"] is (rc == 0), (name, err)
            assert entry["available"] is (name != reference)
            if name == reference:
                assert rc == 2 and (f"missing {package}" in err or package == references.REFERENCES[name])
                assert entry["missing"] == package and references.INSTALL[name] in err
                assert references.INSTALL[name] in text and "Traceback" not in err
    finally:
        references.load_google.cache_clear()


def test_subprocess():
    proc = subprocess.run([sys.executable, "-m", "bertpiece", "info", "--json"], capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["unicode_version"] == bertpiece.UNICODE_VERSION
