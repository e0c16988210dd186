"""Where a BERT serving call's time goes (issue 28): thread CPU time per call of
each part, on the last 2,000 UD English-EWT sentences (as benches/bert_peers.py).

    python benches/serving_parts.py [--checkout DIR] [--rounds N] [--batch 8 32 256]

Parts of a padded batch of 1 (`tok([text], padding=True, truncation=True,
max_length=128, return_tensors="np")`): the whole call, `serving.batch`, the
core's `encode_padded_block` (default threads and 1), `np.asarray` of its
block, the three views and their dict (what the call ran before serve28), the
core's `encode_padded_planes` (what it runs since: the three arrays made by the
core), the lazy rows, the options plan, and the core's one-text `encode_to_list`; one text: `tok(text)`, `tok.encode(text)`.
For each `--batch` size: the whole padded call, the core's block (default
threads and 1), and the core on the same sentences joined into one text (the
per-byte speed without per-row work).

`--checkout`: the checkout whose python/ is imported (default: this one).
A/B of two builds: run it alternately for each (`--checkout A`, `--checkout B`,
A, B, ...) and compare medians; on a loaded machine only CPU time means much,
and the load is printed with each run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
            ROOT.parent / "shared" / "data")


def per_call(fn, number, rounds):
    """Median over `rounds` of the thread CPU time of `number` calls, per call, in µs."""
    return statistics.median(timeit.repeat(fn, number=number, repeat=rounds, timer=time.thread_time)) / number * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkout", default=str(ROOT))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--batch", type=int, nargs="*", default=[8, 32, 256])
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.checkout) / "python"))
    import numpy as np

    import bertpiece
    from bertpiece import _core
    from bertpiece.bert_tokenizer import batch_call, serving

    lines = [s for s in (DATA / "corpus" / "ud-en.txt").read_text(encoding="utf-8").split("\n") if s][:3852][-2000:]
    tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
    padded = dict(padding=True, truncation=True, max_length=128, return_tensors="np")
    tok(lines[:8], **padded)
    st, core = serving.state(tok), tok._core
    x = [lines[5]]

    def block(texts, threads=None):
        return _core.encode_padded_block(core, texts, (st.cls, st.sep), 128, None, None, st.pad, False, 0, st.added,
                                         threads)
    array = block(x)[1]
    arr = np.asarray(array)
    parts = {
        "batch of 1: whole call": lambda: tok(x, **padded),
        "serving.batch": lambda: serving.batch(tok, x, True, True, True, True, 128, None, "np", True),
        "core encode_padded_block": lambda: block(x),
        "the same, num_threads=1": lambda: block(x, 1),
        "np.asarray(block)": lambda: np.asarray(array),
        "three views and their dict": lambda: {"input_ids": arr[0], "token_type_ids": arr[1], "attention_mask": arr[2]},
        "lazy rows": lambda: batch_call._LazyRows(tok, None, x, None, True, "longest_first", 128, "right", 30, False),
        "options plan": lambda: serving.plan(tok, st, True, True, 128, 0, None, 1),
        "one text: core encode_to_list": lambda: _core.encode_to_list(core, x[0], st.cls, st.sep),
    }
    if hasattr(_core, "encode_padded_planes"):  # (serve28 on: what the call runs instead of the block, asarray, views)
        plan = _core.PaddedPlan((st.cls, st.sep), 128, None, None, st.pad, False, 0, st.added)
        parts["core encode_padded_planes (the arrays made by the core)"] = lambda: _core.encode_padded_planes(core, x,
                                                                                                              plan)
    out = {name: per_call(fn, 20000, args.rounds) for name, fn in parts.items()}
    for name, fn in (("one text: tok(text)", tok), ("tok.encode(text)", tok.encode)):
        out[name] = per_call(lambda f=fn: [f(t) for t in lines], 1, args.rounds) / len(lines)
    for b in args.batch:
        batches = [lines[i:i + b] for i in range(0, len(lines), b)][:max(8, 2000 // b)]
        joined = [" ".join(t) for t in batches]
        n = len(batches)
        out[f"batch of {b}: whole call"] = per_call(lambda: [tok(t, **padded) for t in batches], 1, args.rounds) / n
        out[f"batch of {b}: core block"] = per_call(lambda: [block(t) for t in batches], 1, args.rounds) / n
        out[f"batch of {b}: core block, 1 thread"] = per_call(lambda: [block(t, 1) for t in batches], 1,
                                                               args.rounds) / n
        out[f"batch of {b}: core, joined into one text"] = per_call(
            lambda: [_core.encode_to_list(core, t, st.cls, st.sep) for t in joined], 1, args.rounds) / n
    print(f"checkout {args.checkout}, load {os.getloadavg()}")
    for name, us in out.items():
        print(f"| {name} | {us:.2f} |")


if __name__ == "__main__":
    main()
