"""The live progress line and the summary of the long commands (`encode`,
`train`, `parity`), both on stderr, one implementation for the three.

On a terminal the progress is ONE line, redrawn in place at most 5 times a
second and never wider than the terminal (measured in display columns, so a
wide character counts twice): a line that wraps would stack a new line at
every redraw. When it ends, the last frame is drawn with the final figures,
the ones the summary then prints. Not on a terminal (a log file, CI) there is
no live line: a plain line after 10 s, then each time the run's age doubles
(at most one every 10 minutes), so a long run logs a few lines, never hundreds.
"""

from __future__ import annotations

import contextlib
import os
import sys
import textwrap
import threading
import time
from dataclasses import asdict, dataclass, field

from .text import width as display_width

REDRAW_EVERY = 0.2  # seconds between terminal redraws
PLAIN_FIRST, PLAIN_MAX_GAP = 10.0, 600.0  # seconds: first plain line, longest gap between two
UNK_HINT_RATE = 0.01  # summary hint above this unknown-token rate


def columns(stream) -> int:
    """The terminal's width for `stream`: $COLUMNS when set, else the terminal's own, else 80."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):  # not a terminal, or no file descriptor (tests)
        return 80


def is_terminal(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def summary_width(stream) -> int | None:
    """The width a summary wraps at: the terminal's (minus its last column), none off a terminal."""
    return columns(stream) - 1 if is_terminal(stream) else None


def cut(text: str, limit: int) -> str:
    """`text` cut to `limit` display columns, ending in "…" when cut."""
    if display_width(text) <= limit:
        return text
    out, used = [], 0
    for ch in text:
        w = display_width(ch)
        if used + w > limit - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…" if limit > 0 else ""


def frame(label: str, frac: float | None, fields: list, limit: int) -> str:
    """`label [####    ]  45.2%  field  field ...` in at most `limit` columns: the bar
    goes first, then the last fields, then the text is cut."""
    pct = f"{100 * frac:5.1f}%" if frac is not None else None
    bar = "[" + ("#" * int(frac * 20)).ljust(20) + "]" if frac is not None else None
    tries = [(bar, len(fields))] + [(None, n) for n in range(len(fields), -1, -1)]
    text = label
    for bar_, n in tries:
        text = "  ".join(p for p in [label, bar_, pct, *fields[:n]] if p)
        if display_width(text) <= limit:
            return text
    return cut(text, limit)


def wrap(head: str, parts: list, limit: int | None, *, keep_parts: bool = True) -> str:
    """`head part, part, ...`; with a `limit` (a terminal), broken onto lines of at
    most `limit` columns (continuations indented) between parts (`keep_parts`,
    figures such as "1,234 rows in" stay whole) or between words, never mid-word."""
    text = head + " " + ", ".join(parts)
    if limit is None:
        return text
    glue = "\x00"  # a space no line may break at
    if keep_parts:
        text = head + " " + ", ".join(p.replace(" ", glue) for p in parts)
    options = dict(width=max(limit, 20), subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
    lines = []
    for line in textwrap.wrap(text, **options):
        line = line.replace(glue, " ")
        # a figure wider than the terminal: broken between its words after all (a long path: anywhere)
        lines.extend(textwrap.wrap(line, **{**options, "break_long_words": True})
                     if display_width(line) > limit else [line])
    return "\n".join(lines)


class LiveLine:
    """The progress of one command on `stream` (stderr): `show(label, frac, fields)`
    as often as convenient; `close(...)` with the final figures. Disabled: silent."""

    def __init__(self, command: str, *, enabled: bool = True, stream=None, clock=None,
                 start: float | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.command = command
        self.enabled = enabled
        self.tty = enabled and is_terminal(self.stream)
        self.clock = clock or (lambda: time.monotonic())  # looked up per call: tests replace it
        self.start = self.clock() if start is None else start
        self.last_draw = None
        self.next_plain = self.start + PLAIN_FIRST
        self.state = None  # (label, frac, fields) last shown
        self._lock = threading.Lock()

    def elapsed(self) -> float:
        return self.clock() - self.start

    def show(self, label: str, frac: float | None, fields: list, force: bool = False):
        if not self.enabled:
            return
        self.state = (label, frac, list(fields))
        now = self.clock()
        if self.tty:
            if force or self.last_draw is None or now - self.last_draw >= REDRAW_EVERY:
                self.last_draw = now
                self._draw(label, frac, fields)
        elif now >= self.next_plain:
            self.next_plain = now + min(max(now - self.start, PLAIN_FIRST), PLAIN_MAX_GAP)
            pct = f" {100 * frac:.0f}%" if frac is not None else ""
            self._write(f"{self.command}: {label}{pct}, " + ", ".join(fields) + "\n")

    def _draw(self, label, frac, fields):
        self._write("\r" + frame(label, frac, fields, columns(self.stream) - 1) + "\x1b[K")

    def _write(self, text: str):
        with self._lock:
            self.stream.write(text)
            self.stream.flush()

    @contextlib.contextmanager
    def ticking(self, label: str, frac: float | None, fields: list, extra: str):
        """While the block runs, the frame (`label`, `frac`, `fields` + `extra N s`, the
        seconds spent in the block), redrawn twice a second: work after the last input byte."""
        if not self.tty:
            yield
            return
        began = self.clock()
        stop = threading.Event()

        def tick():
            while True:
                self._draw(label, frac, fields + [f"{extra} {self.clock() - began:.0f} s"])
                if stop.wait(0.5):
                    return

        ticker = threading.Thread(target=tick, daemon=True, name="bertpiece-progress")
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()

    def close(self, label: str | None = None, frac: float | None = None, fields: list | None = None):
        """Ends the line: on a terminal the final frame (`label`, `frac`, `fields`: the
        summary's figures), then a newline. Without them (an error), just the newline."""
        if not self.tty:
            return
        if label is not None:
            self._draw(label, frac, fields or [])
            self.last_draw = self.clock()
        if self.last_draw is not None:
            self._write("\n")
        self.tty = False  # closed: a second close writes nothing


# ------------------------------------------------------------------ encode
def mb_per_s(nbytes: int, seconds: float) -> float:
    """The speed both the last frame and the summary print (MB = 10**6 bytes)."""
    return round(nbytes / 1e6 / seconds, 2) if seconds > 0 else 0.0


@dataclass
class Counters:
    """What the summary reports; saved in the resume state so a resumed run's
    summary covers the whole output."""
    rows_in: int = 0
    rows_out: int = 0
    tokens: int = 0
    content_tokens: int = 0  # tokens other than [CLS]/[SEP] added by the encoder
    unk_tokens: int = 0
    truncated_rows: int = 0
    invalid_utf8_lines: int = 0

    def add(self, other: "Counters"):
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)


@dataclass
class Summary:
    counters: Counters
    seconds: float
    input_bytes: int
    resumed_from_row: int = 0
    outputs: list = field(default_factory=list)
    model: str | None = None  # the bundled model used (None: --vocab), for the unknown-token hint

    def as_dict(self) -> dict:
        c = self.counters
        return {**asdict(c), "unk_rate": c.unk_tokens / c.content_tokens if c.content_tokens else 0.0,
                "seconds": round(self.seconds, 3), "input_bytes": self.input_bytes,
                "mb_per_s": mb_per_s(self.input_bytes, self.seconds),
                "resumed_from_row": self.resumed_from_row, "outputs": self.outputs}

    def text(self, limit: int | None = None) -> str:
        """The summary; with `limit` (a terminal's width) wrapped between figures."""
        d = self.as_dict()
        parts = [f"{d['rows_in']:,} rows in", f"{d['rows_out']:,} rows out", f"{d['tokens']:,} tokens",
                 f"unk rate {100 * d['unk_rate']:.3f}%", f"{d['truncated_rows']:,} truncated rows",
                 f"{d['invalid_utf8_lines']:,} invalid-UTF-8 lines",
                 f"{self.seconds:.2f} s",  # (not as_dict's 3-decimal figure: rounded twice, it can differ)
                 f"{d['mb_per_s']:.1f} MB/s"]
        if d["resumed_from_row"]:
            parts.append(f"resumed at row {d['resumed_from_row']:,}")
        out = wrap("bertpiece encode:", parts, limit)
        if d["unk_rate"] > UNK_HINT_RATE:
            hint = "many unknown tokens: the text may not be in the vocabulary's language"
            if self.model is not None and self.model != "bert-base-multilingual-cased":
                hint += "; try --model bert-base-multilingual-cased"
            out += "\n" + wrap("bertpiece encode:", [hint], limit, keep_parts=False)
        return out


class Progress:
    """`bertpiece encode`'s line: percent of the input's bytes, rows, MB/s, ETA.

    MB/s is the summary's figure so far: input bytes read since `start` (after
    `base_bytes`, the resume point) over wall time. `phase(name)` shows work
    after the last input byte (assembling Parquet) with a ticking clock."""

    def __init__(self, total_bytes: int | None, enabled: bool = True, stream=None, *,
                 start: float | None = None, base_bytes: int = 0):
        self.line = LiveLine("bertpiece encode", enabled=enabled, stream=stream, start=start)
        self.total = total_bytes
        self.base_bytes = base_bytes
        self.rows = 0
        self.done_bytes = 0

    def _fields(self, seconds: float, tail: str | None, eta: bool = True) -> tuple:
        read = max(self.done_bytes - self.base_bytes, 0)
        fields = [f"{self.rows:,} rows", f"{mb_per_s(read, seconds):.1f} MB/s"]
        frac = min(self.done_bytes / self.total, 1.0) if self.total else None
        if tail:
            fields.append(tail)
        elif frac is not None and eta:
            rate = read / seconds if seconds > 0 else 0
            left = (self.total - self.done_bytes) / rate if rate > 0 else None
            fields.append(f"ETA {int(left // 60)}:{int(left % 60):02d}" if left is not None else "ETA ?")
        return frac, fields

    def update(self, rows: int, done_bytes: int, force: bool = False):
        self.rows, self.done_bytes = rows, done_bytes
        frac, fields = self._fields(self.line.elapsed(), None)
        self.line.show("encoding", frac, fields, force)

    def phase(self, name: str):
        frac, fields = self._fields(self.line.elapsed(), None, eta=False)
        return self.line.ticking("encoding", frac, fields, name)

    def close(self, seconds: float | None = None):
        """The final frame, with the summary's `seconds` (None: the run failed)."""
        if seconds is None:
            self.line.close()
            return
        frac, fields = self._fields(seconds, f"{seconds:.2f} s")
        self.line.close("done", frac, fields)
