"""A padded serving batch's parts against nanotoken's (issue 28), CPU time:

    .cache/bert-peers/venv-peers/bin/python benches/serving_peer_parts.py [--batch 8 32 256] [--passes 9]

(the peers' venv, made by `python benches/peers.py bert`). Per batch size, on
the last 2,000 UD English-EWT sentences (as benches/bert_peers.py): the whole
call (`tok(texts, padding=True, truncation=True, max_length=128,
return_tensors="np")`, bertpiece and nanotoken's `as_hf()`), the core's padded
block and nanotoken's Rust `encode_batch_padded` (one thread), and each
engine's one-text encode of the batch's sentences joined by spaces (the
encoder without rows). Then the joined text of 256 sentences warm (seen
before) and cold (word caches emptied before each text). CPU time of the
process (`time.process_time`), median of `--passes`, the engines taking
turns; the load is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
DATA = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
            ROOT.parent / "shared" / "data")


def per_call(fns, calls, passes):
    """{name: median over `passes` of the CPU µs per call of `fn(i)` for i in range(calls)}, in turns."""
    out = {name: [] for name in fns}
    for _ in range(passes):
        for name, fn in fns.items():
            t0 = time.process_time()
            for i in range(calls):
                fn(i)
            out[name].append((time.process_time() - t0) / calls * 1e6)
    return {name: statistics.median(v) for name, v in out.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, nargs="*", default=[8, 32, 256])
    ap.add_argument("--passes", type=int, default=9)
    args = ap.parse_args()
    import nanotoken

    import bertpiece
    from bertpiece import _core
    from bertpiece.bert_tokenizer import serving

    lines = [s for s in (DATA / "corpus" / "ud-en.txt").read_text(encoding="utf-8").split("\n") if s][:3852][-2000:]
    tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
    json_path = ROOT / ".cache" / "bert-peers" / "bert-base-uncased.json"
    nt = nanotoken.Tokenizer.from_json(json_path.read_text(encoding="utf-8"))
    hf, backend = nt.as_hf(), nt._backend
    padded = dict(padding=True, truncation=True, max_length=128, return_tensors="np")
    tok(lines[:8], **padded)
    st, core = serving.state(tok), tok._core

    def block(texts):
        return _core.encode_padded_block(core, texts, (st.cls, st.sep), 128, None, None, st.pad, False, 0, st.added, 1)

    def nt_block(texts):
        return backend.encode_batch_padded(texts, max_length=128, truncation=True, padding="longest", pad_id=0,
                                           parallel=False)

    print(f"load {os.getloadavg()[0]:.1f}; CPU µs per call, median of {args.passes} passes")
    print("| batch | bertpiece call | nanotoken call | bertpiece block | nanotoken raw padded | bertpiece joined | "
          "nanotoken joined |\n|---|---|---|---|---|---|---|")
    for b in args.batch:
        batches = [lines[i:i + b] for i in range(0, len(lines), b)][:max(8, 2000 // b)]
        joined = [" ".join(t) for t in batches]
        for i, t in enumerate(joined):
            assert list(backend.encode(t)) == _core.encode_to_list(core, t, st.cls, st.sep), i
        got = per_call({
            "bp call": lambda i: tok(batches[i], **padded), "nt call": lambda i: hf(batches[i], **padded),
            "bp block": lambda i: block(batches[i]), "nt block": lambda i: nt_block(batches[i]),
            "bp joined": lambda i: _core.encode_to_list(core, joined[i], st.cls, st.sep),
            "nt joined": lambda i: backend.encode(joined[i])}, len(batches), args.passes)
        print(f"| {b} | " + " | ".join(f"{v:.1f}" for v in got.values()) + " |")
    joined = [" ".join(lines[i:i + 256]) for i in range(0, 2000, 256)]
    engines = {"bertpiece": (lambda j: _core.encode_to_list(core, j, st.cls, st.sep), _core._forget_words),
               "nanotoken": (backend.encode, nt.clear_cache)}
    for mode in ("warm", "cold"):
        cpu = {name: [] for name in engines}
        for _ in range(args.passes):
            for name, (encode, forget) in engines.items():
                spent = 0.0
                for j in joined:
                    if mode == "cold":
                        forget()
                    t0 = time.process_time()
                    encode(j)
                    spent += time.process_time() - t0
                cpu[name].append(spent / len(joined) * 1e6)
        print(f"256 sentences joined, {mode}: " + ", ".join(f"{n} {statistics.median(v):.1f}" for n, v in cpu.items()))


if __name__ == "__main__":
    main()
