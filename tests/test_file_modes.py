"""Files bertpiece writes get the mode a plain `open(path, "w")` gives them
(0o666 less the process umask), also those written atomically through a
temporary file (which `tempfile.mkstemp` would leave 0600): the trained
vocab.txt (API and CLI), BertTokenizer's save_vocabulary / save_pretrained,
and `bertpiece encode`'s outputs."""

import os
import stat

import pytest

import bertpiece
from bertpiece.cli import main


@pytest.fixture(params=[0o022, 0o077, 0o002, 0o027], ids=oct)
def umask(request):
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def modes(directory):
    """{path relative to `directory`: permission bits} of every file below it."""
    out = {}
    for root, _, files in os.walk(directory):
        for name in files:
            path = os.path.join(root, name)
            out[os.path.relpath(path, directory)] = stat.S_IMODE(os.stat(path).st_mode)
    return out


def test_a_plain_open_gives_0o666_less_the_umask(umask, tmp_path):
    # The reference the other tests compare to, measured rather than assumed.
    with open(tmp_path / "plain.txt", "w") as f:
        f.write("x")
    assert modes(tmp_path) == {"plain.txt": 0o666 & ~umask}


def test_trained_vocab_has_the_umask_mode(umask, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world\nthe world is here\n" * 20, encoding="utf-8")
    vocab = bertpiece.train_wordpiece(corpus, 60)
    vocab.save(tmp_path / "api.txt")
    assert main(["train", str(corpus), "-o", str(tmp_path / "cli.txt"), "--vocab-size", "60", "-q"]) == 0
    want = 0o666 & ~umask
    got = modes(tmp_path)
    assert got["api.txt"] == got["cli.txt"] == want
    assert sorted(got) == ["api.txt", "cli.txt", "corpus.txt"]  # no temporary file left
    assert (tmp_path / "api.txt").read_text(encoding="utf-8") == "".join(t + "\n" for t in vocab)


def test_tokenizer_files_and_encode_outputs_have_the_umask_mode(umask, tmp_path):
    tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
    tok.save_pretrained(tmp_path / "pretrained")
    tok.save_vocabulary(tmp_path, "prefixed")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world\nthe world is here\n" * 20, encoding="utf-8")
    for ext in ("parquet", "npy", "bin"):
        assert main(["encode", str(corpus), "-o", str(tmp_path / f"ids.{ext}"), "-q"]) == 0
    got = modes(tmp_path)
    assert {"pretrained/vocab.txt", "prefixed-vocab.txt", "ids.parquet", "ids.npy", "ids.row_splits.npy", "ids.bin",
            "ids.idx"} <= set(got)
    assert set(got.values()) == {0o666 & ~umask}, got


def test_atomic_write_leaves_the_target_alone_on_failure(umask, tmp_path, monkeypatch):
    from bertpiece._atomic_write import write_text_atomically

    target = tmp_path / "v.txt"
    target.write_text("old", encoding="utf-8")

    def fail(src, dst):
        raise KeyboardInterrupt
    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomically(target, "new\n")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["v.txt"] and target.read_text(encoding="utf-8") == "old"
    assert write_text_atomically(target, "new\r\n") == str(target)
    assert target.read_bytes() == b"new\r\n" and modes(tmp_path) == {"v.txt": 0o666 & ~umask}


def test_replacing_a_file_or_a_link_is_like_open_w(umask, tmp_path):
    """open("w") keeps an existing file's mode and writes through a symbolic
    link; the atomic write does the same (measured side by side)."""
    vocab = bertpiece.train_wordpiece(["hello world"] * 3, 40)
    text = "".join(t + "\n" for t in vocab)
    for name in ("plain", "atomic"):
        (tmp_path / f"{name}.txt").write_text("old", encoding="utf-8")
        os.chmod(tmp_path / f"{name}.txt", 0o640)
        (tmp_path / f"{name}-target.txt").write_text("old", encoding="utf-8")
        os.chmod(tmp_path / f"{name}-target.txt", 0o604)
        os.symlink(f"{name}-target.txt", tmp_path / f"{name}-link.txt")
        os.symlink(f"{name}-new-target.txt", tmp_path / f"{name}-dangling.txt")
    for suffix in (".txt", "-link.txt", "-dangling.txt"):
        with open(tmp_path / f"plain{suffix}", "w", encoding="utf-8") as f:
            f.write(text)
        vocab.save(tmp_path / f"atomic{suffix}")
    got = modes(tmp_path)
    for suffix in (".txt", "-target.txt", "-new-target.txt"):
        assert got[f"atomic{suffix}"] == got[f"plain{suffix}"], (suffix, got)
        assert (tmp_path / f"atomic{suffix}").read_text(encoding="utf-8") == text
    assert got["atomic.txt"] == 0o640 and got["atomic-new-target.txt"] == 0o666 & ~umask
    assert os.path.islink(tmp_path / "atomic-link.txt") and os.path.islink(tmp_path / "atomic-dangling.txt")
    # 3 files, 2 links and the file one creates, each way; no temporary file left
    assert sorted(got) == sorted(f"{name}{suffix}" for name in ("plain", "atomic") for suffix in (
        ".txt", "-target.txt", "-link.txt", "-dangling.txt", "-new-target.txt"))
