"""What ``Tokenizer.train`` shows with ``show_progress=True`` (the trainer's
option; HF's default): what ``bertpiece train`` shows, from the same terminal
code (bertpiece/terminal/progress.py), on stderr. On a terminal, one live
line (counting, then merging or EM) closed with the final figures; off a
terminal (a log, a notebook), no live line, only a plain line when the run
passes 10 s (then as its age doubles); in both, one summary line at the end.
``show_progress=False``: nothing."""

from __future__ import annotations

from typing import Any, List, Optional

from ..terminal.progress import LiveLine, summary_width, wrap

COMMAND = "bertpiece Tokenizer.train"


class TrainProgress:
    """`counted` after each batch, `merged` / `em_step` from the trainer's
    callback, then `finish` (summary) or `fail` (closes the line)."""

    def __init__(self, show: bool) -> None:
        self.line = LiveLine(COMMAND, enabled=show)
        self.show = show

    def counted(self, texts: int) -> None:
        self.line.show("counting", None, [f"{texts:,} texts", f"{self.line.elapsed():.0f} s"])

    def merged(self, done: int, target: int) -> None:
        self.line.show("merging", min(done / target, 1.0) if target else None,
                       [f"{done:,}/{target:,} tokens", f"{self.line.elapsed():.0f} s"])

    def em_step(self, pieces: int, target: int) -> None:
        self.line.show("EM", None, [f"{pieces:,} pieces -> {target:,}", f"{self.line.elapsed():.0f} s"])

    def callback(self, kind: str) -> Optional[Any]:
        """The trainer's `progress(size, target)` for model `kind` (None when not shown: no per-step call)."""
        if not self.show or kind == "WordLevel":
            return None
        return self.em_step if kind == "Unigram" else self.merged

    def fail(self) -> None:
        self.line.close()

    def finish(self, kind: str, words: int, unique: int, vocab_size: int) -> None:
        """The last frame and the summary, with the same seconds."""
        if not self.show:
            return
        seconds = self.line.elapsed()
        self.line.close("done", 1.0, [f"{vocab_size:,} tokens", f"{seconds:.2f} s"])
        parts: List[str] = [f"{words:,} words", f"{unique:,} unique", f"{vocab_size:,} tokens ({kind})",
                            f"{seconds:.2f} s"]
        stream = self.line.stream
        print(wrap(f"{COMMAND}:", parts, summary_width(stream)), file=stream, flush=True)
