"""A self-contained HTML report of a `ParityResult`: inline CSS, no scripts, no
external assets; every piece of text from the corpus or the tokenizers is escaped."""

from __future__ import annotations

import html
from typing import Optional

from .parity_report import KIND_LABELS, KINDS, UNEXPLAINED, Difference, Output, ParityResult

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; }
table.summary td, table.summary th { padding: 2px 12px 2px 0; text-align: left; }
.ok { color: #1a7f37; font-weight: bold; } .fail { color: #cf222e; font-weight: bold; }
.diff { border: 1px solid #ccc; border-radius: 6px; padding: 0.6em 1em; margin: 1em 0; }
.diff.unexplained { border-color: #cf222e; }
.kind { font-weight: bold; } .text { font-family: monospace; white-space: pre-wrap; background: #f6f8fa; padding: 4px; }
.tokens { font-family: monospace; line-height: 1.9; }
.side { display: inline-block; width: 7em; color: #555; }
.tok { border: 1px solid #d0d7de; border-radius: 3px; padding: 0 3px; margin-right: 2px; white-space: pre; }
.tok.first { background: #ffebe9; border-color: #cf222e; font-weight: bold; }
.error { color: #cf222e; }
"""


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _visible(text: str) -> str:
    """Escapes invisible characters the way the text report does (then HTML-escape)."""
    from .terminal.text import visible

    return visible(text)


def _side(label: str, out: Output, first: Optional[int], field: str) -> str:
    if out.error is not None:
        body = f'<span class="error">{_e(out.error)}</span>'
    else:
        items = out.tokens if field != "ids" else [f"{t} ({i})" for t, i in zip(out.tokens, out.ids)]
        body = "".join(
            f'<span class="tok{" first" if k == first else ""}" title="id {_e(out.ids[k]) if k < len(out.ids) else ""}">'
            f"{_e(_visible(tok))}</span>" for k, tok in enumerate(items))
        if first is not None and first >= len(items):
            body += '<span class="tok first">(end)</span>'
    return f'<div class="tokens"><span class="side">{_e(label)}</span>{body}</div>'


def _difference(d: Difference, reference: str) -> str:
    detail = ""
    if d.detail:
        detail = "<ul>" + "".join(f"<li>{_e(x)}</li>" for x in d.detail) + "</ul>"
    first = d.index if d.field != "error" else None
    where = f"first difference: {d.field} #{d.index}" if d.field != "error" else "an error was raised"
    return (f'<div class="diff {_e(d.kind)}"><div><b>line {d.line_no}</b> — '
            f'<span class="kind">{_e(KIND_LABELS[d.kind])}</span> — {_e(where)}</div>{detail}'
            f'<div class="text">{_e(_visible(d.text))}</div>'
            f'{_side("bertpiece", d.ours, first, d.field)}{_side(reference, d.theirs, first, d.field)}</div>')


def render_html(result: ParityResult) -> str:
    """The whole report as one HTML document."""
    versions = result.unicode_versions()
    rows = [
        ("reference", result.reference), ("vocabulary", result.source),
        ("lowercase", "yes" if result.do_lower_case else "no"),
        ("Unicode", f"bertpiece {versions['bertpiece']}, reference "
                    f"{versions['reference'] or 'fixed tables (not the interpreter)'}"),
        ("lines compared", result.lines),
        ("exact matches", f"{result.matching} ({100 * result.match_rate:.2f}%)"),
    ] + [(f"differences: {KIND_LABELS[k]}", result.counts[k]) for k in KINDS]
    summary = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    verdict = ('<p class="ok">OK: no unexplained differences</p>' if result.ok else
               f'<p class="fail">FAIL: {result.counts[UNEXPLAINED]} unexplained difference(s)</p>')
    shown = len(result.differences)
    more = (f"<p>{result.differing - shown} more differing line(s) not listed.</p>"
            if result.differing > shown else "")
    diffs = "".join(_difference(d, result.reference) for d in result.differences)
    title = f"bertpiece parity: {result.reference}"
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f"<style>{_CSS}</style></head><body><h1>{_e(title)}</h1>"
            f'<table class="summary">{summary}</table>{verdict}'
            f"<h2>Differing lines</h2>{diffs or '<p>None.</p>'}{more}</body></html>\n")
