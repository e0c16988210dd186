"""Terminal text helpers shared by the CLI commands: display width, visible
escapes for invisible characters, optional ANSI colour."""

from __future__ import annotations

import os
import sys
import unicodedata

# Characters that would move the cursor, vanish or break the layout if printed raw.
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def visible(text: str) -> str:
    """`text` with control/format/unassigned characters and non-space whitespace
    shown as Python escapes (\\t, \\x00, \\u200b, \\U000e0001)."""
    out = []
    for ch in text:
        if unicodedata.category(ch) in _INVISIBLE or (ch.isspace() and ch != " "):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def width(text: str) -> int:
    """Terminal columns `text` takes: wide/fullwidth characters 2, combining marks 0."""
    w = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def pad(text: str, columns: int) -> str:
    """`text` padded with spaces to `columns` display columns."""
    return text + " " * max(0, columns - width(text))


def use_color(no_color_flag: bool, stream=None) -> bool:
    """Colour only on a terminal, and not with --no-color or a non-empty NO_COLOR (no-color.org)."""
    stream = sys.stdout if stream is None else stream
    if no_color_flag or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


STYLES = {"dim": "2", "bold": "1", "red": "31", "green": "32", "yellow": "33", "blue": "34", "cyan": "36"}


def paint(text: str, style: str, enabled: bool) -> str:
    """`text` wrapped in the ANSI codes of `style` when `enabled`."""
    if not enabled or not text:
        return text
    codes = ";".join(STYLES[s] for s in style.split("+"))
    return f"\x1b[{codes}m{text}\x1b[0m"
