"""What every `bertpiece train --model ...` path does alike, written once: the
output checks, the live line's merge frames, the closing frame and summary."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, List


def check_output(args) -> None:
    """Refuses an output that is one of the inputs, exists (without --overwrite)
    or lies in a missing directory -- before the corpus is read."""
    from . import UserError, refuse_input_as_output

    refuse_input_as_output(args.inputs, [args.output, args.summary_json])
    if os.path.lexists(args.output) and not args.overwrite:
        raise UserError(f"{args.output} already exists (use --overwrite to replace it)")
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        raise UserError(f"cannot write {args.output}: directory {out_dir} does not exist")


def train_and_save(line, args, train: Callable[[], Any]) -> Any:
    """Runs ``train()`` (trainer options checked inside it) and saves its result
    to ``args.output``; bad options, an empty corpus or an unwritable output
    are one-line errors, and the live line is closed on any way out."""
    from . import UserError, threads_note

    try:
        with threads_note(args.threads):
            trained = train()
        if trained.stats["words"] == 0:
            raise UserError("the corpus has no words to learn from (empty); nothing written")
        try:
            trained.save(args.output)
        except OSError as e:
            raise UserError(f"cannot write {args.output}: {e.strerror or e}") from None
    except (TypeError, ValueError, FileNotFoundError) as e:
        line.close()
        raise UserError(str(e)) from None
    except BaseException:
        line.close()
        raise
    return trained


def show_merging(line, done: int, target: int) -> None:
    line.show("merging", min(done / target, 1.0) if target else None,
              [f"{done:,}/{target:,} tokens", f"{line.elapsed():.0f} s"])


def finish(line, args, stats: dict, parts: List[str]) -> int:
    """Closes the line and prints one summary: ``parts`` (the counts of this
    model's training) then the time and output. The last frame and the summary
    show the same seconds."""
    from . import write_summary_json
    from ..terminal.progress import summary_width, wrap

    stats = {**stats, "seconds": round(line.elapsed(), 3), "output": args.output}
    steps = [f"{stats['merges']:,} merges"] if "merges" in stats else [f"{stats['rounds']:,} EM rounds"]
    line.close("done", 1.0, [f"{stats['vocab_size']:,} tokens", *steps, f"{stats['seconds']:.2f} s"])
    if not args.quiet:
        parts = parts + [f"{stats['seconds']:.2f} s -> {args.output}"]
        print(wrap("bertpiece train:", parts, summary_width(sys.stderr)), file=sys.stderr)
    if args.summary_json:
        write_summary_json(args.summary_json, stats)
    return 0
