"""`bertpiece parity INPUT --reference NAME`: compare bertpiece with a real reference tokenizer over a corpus.

Each line of INPUT (one document per line, `-` for stdin) is tokenized once by
bertpiece and once by the reference library; tokens and ids must be equal.
Differing lines are classified (Unicode version / known quirk / unexplained,
see `bertpiece.parity_report`); the exit status is 1 when any is unexplained.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap

from .. import PRETRAINED, references, vocab_path
from ..parity_html import render_html
from ..parity_report import KIND_LABELS, KINDS, UNEXPLAINED, Difference, ParityResult, compare
from ._input import read_lines
from ..terminal.text import paint, pad, use_color, visible, width
from ..terminal.progress import LiveLine, summary_width

HTML_KEEP = 1000  # differing lines listed in the HTML report at most
CONTEXT_BEFORE, CONTEXT_AFTER = 2, 5  # token rows shown around the first difference


def add_parser(sub):
    from . import DOCS_URL, add_vocab_options, int_range

    summary = __doc__.split("\n")[0].split(": ", 1)[1]
    p = sub.add_parser("parity", help=summary, description=__doc__, epilog=f"Documentation: {DOCS_URL}cli.md",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", metavar="INPUT", help="text file, one document per line (UTF-8), or - for stdin")
    p.add_argument("--reference", required=True, choices=list(references.REFERENCES),
                   help="google: bert-tensorflow; transformers: BertTokenizerLegacy; "
                        "tokenizers: HF tokenizers; oracle: bertpiece.oracle")
    add_vocab_options(p, "lowercase and strip accents (default: the model's casing; with --vocab: yes)")
    p.add_argument("--show", type=int_range(0), default=10, metavar="N", help="differing lines to show (default 10)")
    p.add_argument("--html", metavar="REPORT", help="also write a self-contained HTML report to this file")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary instead of the report")
    p.add_argument("--no-color", action="store_true", help="no colour (also: NO_COLOR environment variable)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line on stderr")
    p.set_defaults(run=run)


def _size(path: str):
    """Bytes in the input when it is a regular file (the progress line's 100%), else None."""
    try:
        return os.path.getsize(path) if path != "-" and os.path.isfile(path) else None
    except OSError:
        return None


def _fields(result: ParityResult, seconds: float, final: bool = False) -> list:
    rate = result.lines / seconds if seconds > 0 else 0.0
    return [f"{result.lines:,} lines", f"{result.differing:,} differing", f"{rate:,.0f} lines/s",
            f"{seconds:.2f} s" if final else f"{seconds:.0f} s"]


def _vocabulary(args):
    """(vocab file, do_lower_case, name shown in the report)."""
    if args.vocab:
        if not os.path.isfile(args.vocab):
            raise _user_error(f"vocabulary file not found: {args.vocab}")
        return args.vocab, True if args.lowercase is None else args.lowercase, args.vocab
    entry = PRETRAINED[args.model]
    # Google's scripts and transformers' hub config disagree on bert-base-chinese.
    default = entry.do_lower_case if args.reference in ("google", "oracle") else entry.hf_do_lower_case
    return vocab_path(args.model), default if args.lowercase is None else args.lowercase, args.model


def _user_error(message: str):
    from . import UserError

    return UserError(message)


def run(args) -> int:
    vocab_file, lower, source = _vocabulary(args)
    # transformers prints "PyTorch was not found..." on import; it is advice, not a problem here.
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    missing = references.missing_package(args.reference)  # the check `bertpiece info` shows
    if missing is not None:
        raise _user_error(str(references.ReferenceMissing(args.reference, missing)))
    try:
        ours = references.load_bertpiece(args.reference, vocab_file, lower)
        theirs = references.load_reference(args.reference, vocab_file, lower)
    except ImportError as e:  # ReferenceMissing, or the oracle refusing another Unicode version
        raise _user_error(str(e)) from None
    except (OSError, ValueError, KeyError) as e:
        raise _user_error(f"cannot load {source}: {e}") from None
    keep = max(args.show, HTML_KEEP if args.html else 0)
    line = LiveLine("bertpiece parity", enabled=not args.quiet)
    total = _size(args.input)
    done = [0]  # input bytes compared

    def lines():
        for text in read_lines(args.input):
            yield text
            done[0] += len(text.encode("utf-8")) + 1

    def progress(result):
        line.show("comparing", min(done[0] / total, 1.0) if total else None, _fields(result, line.elapsed()))

    try:
        result = compare(lines(), ours, theirs, args.reference, source, lower, keep=keep, progress=progress)
    except BaseException:
        line.close()
        raise
    seconds = line.elapsed()
    line.close("done", 1.0 if total else None, _fields(result, seconds, final=True))
    if args.html:
        try:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(render_html(result))
        except OSError as e:
            raise _user_error(f"cannot write {args.html}: {e.strerror or e}") from None
    if args.json:
        print(json.dumps(result.to_json(args.show), ensure_ascii=False, indent=2))
    else:
        print(render_text(result, args.show, use_color(args.no_color), summary_width(sys.stdout)))
    return 0 if result.ok else 1


def render_text(result: ParityResult, show: int, color: bool = False, limit: int | None = None) -> str:
    """The human-readable report: summary, the first `show` differences side by side, verdict.
    With `limit` (a terminal's width), summary lines too wide are wrapped (between words when they fit)."""
    theirs_label, ours_label = references.LABELS[result.reference]
    versions = result.unicode_versions()
    their_unicode = (f"{versions['reference']} (this Python's unicodedata)" if versions["reference"]
                     else "fixed tables")
    counts = ", ".join(f"{KIND_LABELS[k]} {result.counts[k]:,}" for k in KINDS)
    out = [
        f"bertpiece parity: {ours_label}  vs  {theirs_label}",
        f"vocabulary:     {result.source} ({'lowercase' if result.do_lower_case else 'cased'})",
        f"Unicode:        bertpiece {versions['bertpiece']}, reference {their_unicode}",
        f"lines compared: {result.lines:,}",
        f"exact matches:  {result.matching:,} ({100 * result.match_rate:.2f}%)",
        f"differences:    {result.differing:,} ({counts})",
    ]
    if limit is not None:
        out = [wrapped for line in out for wrapped in
               textwrap.wrap(line, max(limit, 20), subsequent_indent="  ")]
    for d in result.differences[:show]:
        out.append("")
        out.extend(_render_difference(d, result.reference, color))
    hidden = result.differing - min(show, len(result.differences))
    if hidden > 0:
        out += ["", f"... {hidden:,} more differing line(s) (--show N to see more)"]
    out.append("")
    if result.ok:
        out.append(paint("OK: no unexplained differences", "green+bold", color))
    else:
        out.append(paint(f"FAIL: {result.counts[UNEXPLAINED]:,} unexplained difference(s)", "red+bold", color))
    return "\n".join(out)


def _render_difference(d: Difference, reference: str, color: bool) -> list:
    style = "red+bold" if d.kind == UNEXPLAINED else "yellow"
    head = f"line {d.line_no:,} [{KIND_LABELS[d.kind]}]"
    if d.detail:
        head += ": " + "; ".join(d.detail)
    text = visible(d.text)
    lines = [paint(head, style, color), f"  text: {text if len(text) <= 300 else text[:300] + '…'}"]
    if d.field == "error":
        for label, side in (("bertpiece", d.ours), (reference, d.theirs)):
            lines.append(f"  {label}: {side.error or ' '.join(side.tokens)}")
        return lines
    lines.append(f"  first difference: {d.field} #{d.index}")

    def cell(side, k):
        if k >= len(side.tokens):
            return "(end)"
        return visible(side.tokens[k]) + (f" ({side.ids[k]})" if k < len(side.ids) else "")

    n = max(len(d.ours.tokens), len(d.theirs.tokens))
    lo, hi = max(0, d.index - CONTEXT_BEFORE), min(n, d.index + CONTEXT_AFTER + 1)
    rows = [(k, cell(d.ours, k), cell(d.theirs, k)) for k in range(lo, max(hi, d.index + 1))]
    col = max([9] + [width(r[1]) for r in rows]) + 2
    lines.append(f"     {'#':>4}  {pad('bertpiece', col)}{reference}")
    if lo > 0:
        lines.append(f"     {'…':>4}")
    for k, a, b in rows:
        mark = paint(">", "red+bold", color) if k == d.index else " "
        lines.append(f"   {mark} {k:>4}  {pad(a, col)}{b}")
    if hi < n:
        lines.append(f"     {'…':>4}")
    return lines
