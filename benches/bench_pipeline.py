"""Byte-level BPE speed: bertpiece.Tokenizer against its peers IN THE SAME RUN,
on the same tokenizer.json and the same text (benches/peers.py runs each in a
subprocess with its own venv, pinned to the CPUs it may use).

The tokenizer is GPT-2-shaped (ByteLevel pre-tokenizer without prefix space,
ByteLevel post-processor and decoder, <|endoftext|>), vocabulary 32,000
trained with HF's BpeTrainer on the first --train-mb MB of en-large; the text
is the first --mb MB of en-large, one text per line. Every engine's ids are
checked equal to tokenizers 0.23.3's (sha256 of all ids and lengths) before
its speed is reported (the reference runs one untimed call when --engines
leaves it out); a peer that differs or cannot load the file is listed
as such. Engines are interleaved round by round (the machine is shared):
medians over --rounds rounds, each round one warm-up and one timed run per
engine, mode and thread count.

    python benches/bench_pipeline.py [--mb 8] [--skip-mb 0] [--rounds 3] [--threads 1,2] [--engines ...] [--tokenizer FILE]
"""

import argparse
import hashlib
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_venvs  # noqa: E402
from corpus_text import head  # noqa: E402
import peers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN_PY = sys.executable  # bertpiece and tokenizers 0.23.3: the project's venv
BENCH_PY = peer_venvs.peer_python("all")
TOK1_PY = peer_venvs.peer_python("tok1")

ENGINES = {
    "bertpiece": lambda tok, text, th, **kw: peers.bertpiece(MAIN_PY, tok, text, th, pythonpath=os.path.join(ROOT, "python"), **kw),
    "tokenizers-0.23.3": lambda tok, text, th, **kw: peers.hf_tokenizers(MAIN_PY, tok, text, th, **kw),
    "tokenizers-1.0.0rc3": lambda tok, text, th, **kw: peers.hf_tokenizers(TOK1_PY, tok, text, th, **kw),
    "fastokens": lambda tok, text, th, **kw: peers.fastokens(BENCH_PY, tok, text, th, **kw),
    "gigatoken": lambda tok, text, th, **kw: peers.gigatoken(BENCH_PY, tok, text, th, **kw),
    "kitoken": lambda tok, text, th, **kw: peers.kitoken(BENCH_PY, tok, text, th, **kw),
    "tiktoken": lambda tok, text, th, **kw: peers.tiktoken(BENCH_PY, tok, text, th, **kw),
    "tokie": lambda tok, text, th, **kw: peers.tokie(BENCH_PY, tok, text, th, **kw),
    "nanotoken": lambda tok, text, th, **kw: peers.nanotoken(BENCH_PY, tok, text, th, **kw),
}
REFERENCE = "tokenizers-0.23.3"


def trained_tokenizer(corpus, train_mb, vocab_size, cache_dir):
    """GPT-2-shaped byte-level BPE trained by HF's trainer (cached by its parameters)."""
    key = hashlib.sha256(f"{os.path.abspath(corpus)}|{train_mb}|{vocab_size}|gpt2".encode()).hexdigest()[:16]
    path = os.path.join(cache_dir, f"bpe-{key}.json")
    if not os.path.exists(path):
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>"], show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        tok.train_from_iterator(head(corpus, train_mb).split("\n"), trainer)
        os.makedirs(cache_dir, exist_ok=True)
        tok.save(path)
    return path


def call_rows(results, engines, threads, mb, exact):
    """The rows of the calls' table: (engine, call, threads, MB/s of the median time, bertpiece's speed over the
    engine's, "yes"/"NO" for `exact(engine, call)`), from `results` {(engine, call, threads): [seconds]}."""
    for th in threads:
        for mode in ("one", "batch", "bulk"):
            ours = results.get(("bertpiece", mode, th))
            for e in engines:
                times = results.get((e, mode, th))
                if not times:
                    continue
                ratio = f"{statistics.median(times) / statistics.median(ours):.2f}" if ours else "-"
                yield e, mode, th, mb / statistics.median(times), ratio, "yes" if exact(e, mode) else "NO"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--skip-mb", type=float, default=0, help="time the text from this many MB into --corpus "
                    "(e.g. 20: en-large's last 8 MB, text no round here tuned on; the trained file still takes the first --train-mb)")
    ap.add_argument("--train-mb", type=float, default=8)
    ap.add_argument("--vocab-size", type=int, default=32000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--cache", default=os.path.join(ROOT, ".cache", "bench_pipeline"))
    ap.add_argument("--tokenizer", help="this tokenizer.json instead of the one trained on --corpus "
                                        "(e.g. a file no one here trained: tests/test_third_party_models.py builds GPT-2's)")
    args = ap.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    threads = [int(t) for t in args.threads.split(",")]
    tokenizer = args.tokenizer or trained_tokenizer(args.corpus, args.train_mb, args.vocab_size, args.cache)
    text = head(args.corpus, args.mb, args.skip_mb)
    mb = len(text.encode("utf-8")) / 1e6
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as f:
        f.write(text)
        text_path = f.name
    print(f"tokenizer {tokenizer}; text {mb:.2f} MB, {text.count(chr(10))} lines; CPUs {sorted(os.sched_getaffinity(0))};"
          f" load average {os.getloadavg()[0]:.2f}")
    results = {}  # (engine, mode, threads) -> [seconds]; plus digests, load, rss
    info = {}
    try:
        if REFERENCE not in engines:
            # The reference's ids are what every engine is checked against: without them no engine is
            # "exact" and the ratio table stays empty. One untimed batch call gives them.
            out = ENGINES[REFERENCE](tokenizer, text_path, 1, modes=("batch",))
            if "error" in out:
                raise SystemExit(f"{REFERENCE} (the reference) failed: {out['error']}")
            info[REFERENCE] = {"digest": dict((m, v["digest"]) for m, v in out["modes"].items())}
        for r in range(args.rounds):
            for th in threads:
                modes = ("one", "batch", "bulk") if th == 1 else ("batch", "bulk")
                for e in engines:
                    out = ENGINES[e](tokenizer, text_path, th, modes=modes)
                    if "error" in out:
                        info.setdefault(e, {})["error"] = out["error"]
                        continue
                    i = info.setdefault(e, {"load": [], "rss": [], "digest": {}})
                    i["load"].append(out["load_s"])
                    i["rss"].append(out["peak_rss_mb"])
                    for mode, m in out["modes"].items():
                        i["digest"][mode] = m["digest"]
                        results.setdefault((e, mode, th), []).extend(m["times"])
            print(f"round {r + 1}/{args.rounds} done; load average {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        os.unlink(text_path)
    ref = next(iter(info.get(REFERENCE, {}).get("digest", {}).values()), None)
    print(f"\n| engine | call | threads | MB/s (median) | bertpiece / engine | ids == {REFERENCE} |")
    print("|---|---|---|---|---|---|")
    exact = lambda e, mode: ref is not None and info[e]["digest"].get(mode) == ref  # noqa: E731
    for e, mode, th, speed, ratio, same in call_rows(results, engines, threads, mb, exact):
        print(f"| {e} | {mode} | {th} | {speed:.1f} | {ratio} | {same} |")
    print("\n| threads | bertpiece's fastest call, MB/s | fastest peer (any call), MB/s | ratio |")
    print("|---|---|---|---|")
    for th in threads:
        best = {}
        for (e, mode, t), times in results.items():
            if t == th and info[e]["digest"].get(mode) == ref:
                speed = mb / statistics.median(times)
                if speed > best.get(e, (0, ""))[0]:
                    best[e] = (speed, mode)
        peers_best = max(((v, e) for e, v in best.items() if e != "bertpiece"), default=None)
        if "bertpiece" in best and peers_best:
            (ours, ours_mode), ((theirs, their_mode), peer) = best["bertpiece"], peers_best
            print(f"| {th} | {ours:.1f} ({ours_mode}) | {theirs:.1f} ({peer} {their_mode}) | {ours / theirs:.2f} |")
    print("\n| engine | load s (median) | peak RSS MB (max) |")
    print("|---|---|---|")
    for e in engines:
        i = info.get(e, {})
        if "error" in i and not i.get("load"):
            print(f"| {e} | does not run: {i['error']} | |")
        elif i.get("load"):
            print(f"| {e} | {statistics.median(i['load']):.3f} | {max(i['rss']):.0f} |")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
