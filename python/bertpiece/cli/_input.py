"""Reading text input for the CLI commands: lines split on "\\n" only (no
universal-newline translation, so a "\\r" or U+2028 stays inside its line, as
the reference libraries would see it), strict UTF-8 with a one-line error."""

from __future__ import annotations

import sys
from typing import BinaryIO, Iterator


def read_lines(path: str) -> Iterator[str]:
    """Lines of `path` ("-" = stdin) without their "\\n"; UserError on unreadable or non-UTF-8 input."""
    from . import UserError

    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream (e.g. io.StringIO in tests): already decoded
            for line in sys.stdin:
                yield line[:-1] if line.endswith("\n") else line
            return
        yield from _decode(stream, "stdin")
        return
    try:
        f = open(path, "rb")
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror or e}") from None
    with f:
        yield from _decode(f, path)


def _decode(stream: BinaryIO, name: str) -> Iterator[str]:
    from . import UserError

    for line_no, raw in enumerate(stream, 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise UserError(f"{name}: line {line_no} is not valid UTF-8 (byte {e.start})") from None
        yield line[:-1] if line.endswith("\n") else line
