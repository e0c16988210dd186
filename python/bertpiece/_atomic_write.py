"""Writing a file whole or not at all, with the mode a plain `open(path, "w")` gives.

`tempfile.mkstemp` creates its file 0600 whatever the umask, and the rename
keeps that mode: a vocab.txt written so was unreadable to the group and
others even under umask 0o022. Here the temporary file is created with mode
0o666, which the kernel reduces by the process umask (and the directory's
default ACL) exactly as for `open(path, "w")`, without reading or changing
the umask (`os.umask` is process-wide, so changing it races other threads).
Like `open(path, "w")`, replacing an existing file keeps its mode, and a
symbolic link is written through (its target is replaced, not the link).
"""

from __future__ import annotations

import os
import secrets
import stat
from typing import Callable

__all__ = ["write_text_atomically", "write_bytes_atomically", "write_file_atomically"]

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def write_text_atomically(path, text: str, *, prefix: str = ".tmp-") -> str:
    """Writes `text` (UTF-8, "\\n" line ends untranslated) to a temporary file
    next to `path`, then renames it over `path`. On any error (or Ctrl-C) the
    temporary file is removed and `path` is untouched. Returns `path` as str."""
    return write_bytes_atomically(path, text.encode("utf-8"), prefix=prefix)


def write_bytes_atomically(path, data: bytes, *, prefix: str = ".tmp-") -> str:
    """As `write_text_atomically`, for bytes."""

    def write(fd: int, tmp: str) -> None:
        with os.fdopen(fd, "wb") as f:
            f.write(data)

    return _replace_atomically(path, write, prefix)


def write_file_atomically(path, write: Callable[[str], None], *, prefix: str = ".tmp-") -> str:
    """As `write_text_atomically`, the content written by `write(temporary_path)`,
    which opens the temporary file (created empty, with the final mode) by its
    name and writes it: for a writer outside Python (the core writes a
    tokenizer.json without making it a Python object first)."""

    def by_name(fd: int, tmp: str) -> None:
        os.close(fd)
        write(tmp)

    return _replace_atomically(path, by_name, prefix)


def _replace_atomically(path, write: Callable[[int, str], None], prefix: str) -> str:
    """`write(fd, tmp)` fills a new temporary file next to `path` (fd open on it,
    for `write` to close), which then replaces `path`; see `write_text_atomically`."""
    path = os.fspath(path)
    target = os.path.realpath(path)
    try:
        status = os.stat(target)
        keep_mode = stat.S_IMODE(status.st_mode) if stat.S_ISREG(status.st_mode) else None
    except FileNotFoundError:
        keep_mode = None
    directory = os.path.dirname(target)
    for _ in range(100):
        tmp = os.path.join(directory, f"{prefix}{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, _FLAGS, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no unused temporary file name in {directory}")
    try:
        if keep_mode is not None:
            os.chmod(tmp, keep_mode)
        write(fd, tmp)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path
