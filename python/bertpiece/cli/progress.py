"""Progress bar and final summary of `bertpiece encode` (both on stderr)."""

from __future__ import annotations

import sys
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
    second; silent when stderr is not a terminal or with --quiet."""

    def __init__(self, total_bytes: int | None, enabled: bool | None = None, stream=None):
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self.total = total_bytes
        self.start = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def update(self, rows: int, done_bytes: int, force: bool = False):
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.2:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = done_bytes / elapsed
        line = f"{rows:,} rows  {rate / 1e6:.1f} MB/s"
        if self.total:
            frac = min(done_bytes / self.total, 1.0)
            bar = "#" * int(frac * 20)
            eta = (self.total - done_bytes) / rate if rate > 0 else float("inf")
            eta_s = f"{int(eta // 60)}:{int(eta % 60):02d}" if eta != float("inf") else "?"
            line = f"[{bar:<20}] {100 * frac:5.1f}%  {line}  ETA {eta_s}"
        self.stream.write("\r" + line + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def close(self):
        if self.enabled and self.drawn:
            self.stream.write("\n")
            self.stream.flush()
