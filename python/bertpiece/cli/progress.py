"""Progress bar and final summary of `bertpiece encode` (both on stderr)."""

from __future__ import annotations

import contextlib
import shutil
import sys
import threading
import time
from dataclasses import asdict, dataclass, field


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

    def as_dict(self) -> dict:
        c = self.counters
        return {**asdict(c), "unk_rate": c.unk_tokens / c.content_tokens if c.content_tokens else 0.0,
                "seconds": round(self.seconds, 3), "input_bytes": self.input_bytes,
                "mb_per_s": round(self.input_bytes / 1e6 / self.seconds, 2) if self.seconds > 0 else 0.0,
                "resumed_from_row": self.resumed_from_row, "outputs": self.outputs}

    def text(self) -> str:
        d = self.as_dict()
        resumed = f" (resumed at row {d['resumed_from_row']:,})" if d["resumed_from_row"] else ""
        return (f"bertpiece encode: {d['rows_in']:,} rows in, {d['rows_out']:,} rows out, {d['tokens']:,} tokens, "
                f"unk rate {100 * d['unk_rate']:.3f}%, {d['truncated_rows']:,} truncated rows, "
                f"{d['invalid_utf8_lines']:,} invalid-UTF-8 lines, {d['seconds']:.2f} s, "
                f"{d['mb_per_s']:.1f} MB/s{resumed}")


class Progress:
    """A one-line progress bar (rows, MB/s, ETA) redrawn at most 5 times a
    second; silent when stderr is not a terminal or with --quiet.

    The line never exceeds the terminal's width (a wrapped line would stack a
    new one per redraw). MB/s is the summary's figure so far: input bytes read
    since `start` (after `base_bytes`, the resume point) over wall time.
    `phase(name)` shows work after the last input byte (assembling Parquet)
    with a ticking clock."""

    def __init__(self, total_bytes: int | None, enabled: bool | None = None, stream=None, *,
                 start: float | None = None, base_bytes: int = 0):
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self.total = total_bytes
        self.start = time.monotonic() if start is None else start
        self.base_bytes = base_bytes
        self.last = 0.0
        self.drawn = False
        self.rows = 0
        self.done_bytes = 0
        self._lock = threading.Lock()

    def _rate(self, now: float) -> float:
        return max(self.done_bytes - self.base_bytes, 0) / max(now - self.start, 1e-9)

    def _line(self, now: float, tail: str | None = None) -> str:
        rate = self._rate(now)
        parts = [f"{self.rows:,} rows", f"{rate / 1e6:.1f} MB/s"]
        bar = ""
        if self.total:
            frac = min(self.done_bytes / self.total, 1.0)
            bar = "[" + ("#" * int(frac * 20)).ljust(20) + "] "
            parts.insert(0, f"{100 * frac:5.1f}%")
            if tail is None:
                left = (self.total - self.done_bytes) / rate if rate > 0 else None
                tail = f"ETA {int(left // 60)}:{int(left % 60):02d}" if left is not None else "ETA ?"
        if tail:
            parts.append(tail)
        line = "  ".join(parts)
        width = shutil.get_terminal_size((80, 24)).columns - 1  # the last column would wrap on some terminals
        if len(bar) + len(line) <= width:
            return bar + line
        return line[:max(width, 0)]  # narrow terminal: drop the bar, then cut

    def _draw(self, line: str):
        with self._lock:
            self.stream.write("\r" + line + "\x1b[K")
            self.stream.flush()
            self.drawn = True

    def update(self, rows: int, done_bytes: int, force: bool = False):
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.2:
            return
        self.last = now
        self.rows, self.done_bytes = rows, done_bytes
        self._draw(self._line(now))

    @contextlib.contextmanager
    def phase(self, name: str):
        """Shows `name` and the seconds spent in it, redrawn twice a second, while the block runs."""
        if not self.enabled:
            yield
            return
        began = time.monotonic()
        stop = threading.Event()

        def tick():
            while True:
                self._draw(self._line(time.monotonic(), f"{name} {time.monotonic() - began:.0f} s"))
                if stop.wait(0.5):
                    return

        ticker = threading.Thread(target=tick, daemon=True, name="bertpiece-progress")
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()

    def close(self):
        if self.enabled and self.drawn:
            self.stream.write("\n")
            self.stream.flush()
