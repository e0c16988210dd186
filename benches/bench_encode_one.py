"""Per-text calls of the `tokenizers.Tokenizer` drop-in against its peers, in CPU time:
`tok.encode(text).ids`, `tok.encode(text)` (the Encoding, no attribute read) and
`tok.encode_batch(texts)` per text, special tokens added (each file's post-processor).

Each engine runs in a subprocess with its own venv's python, pinned to one CPU
(taskset -c, RAYON_NUM_THREADS=1): bertpiece (this checkout's python/), tokie 0.1.4,
tokenizers 1.0.0rc3 and tokenizers 0.23.3 (the reference). Text: 2,000 sentences of
UD English EWT (the lines 1,853-3,852 of ud-en.txt, as the issue-25 measurement).
Each worker warms up, then times `--passes` passes of each call with
time.process_time and reports the median in µs per text; engines are interleaved
round by round and the table shows medians over `--rounds` rounds. Every engine's
ids (encode and encode_batch) are compared with tokenizers 0.23.3's: a figure
marked ≠ is of other ids (tokie 0.1.4 leaves out RobertaProcessing's specials and
the template's `</s>`); it is shown, and counted in the ratio, as the issue's
target counts it.

Tokenizer files (made once into .cache/encode-one/ with tokenizers 0.23.3's
trainers on the first 4 MB of en-large): byte-level BPE + RobertaProcessing,
NFKC + Metaspace + Unigram + `<s> $A </s>`, WordLevel (Whitespace), plain BPE
(Whitespace, `[CLS] $A [SEP]`), ModernBERT-like (byte-level BPE, `[CLS] $A [SEP]`);
plus bert-base-multilingual-cased.json from .cache/bert-peers when present.

    python benches/bench_encode_one.py [--files bytelevel,unigram,...] [--rounds 3] [--passes 7]
        [--base DIR]   (also "bertpiece-base": the package in DIR/bertpiece, e.g. an earlier build)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache", "encode-one")
CORPUS = next((p for p in (os.path.join(ROOT, "..", "shared", "data", "corpus"),
                            os.path.join(ROOT, "..", "..", "shared", "data", "corpus")) if os.path.isdir(p)),
              os.path.join(ROOT, "..", "shared", "data", "corpus"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_venvs import peer_python  # noqa: E402

PY = {  # bertpiece and tokenizers 0.23.3: the project's venv; the peers: their pinned venvs
    "bertpiece": sys.executable,
    "tokie": peer_python("all"),
    "tokenizers-1.0.0rc3": peer_python("tok1"),
    "tokenizers-0.23.3": sys.executable,
}
LOAD = {
    "bertpiece": "import bertpiece; tok = bertpiece.Tokenizer.from_file(PATH)",
    "tokie": "import tokie; tok = tokie.Tokenizer.from_json(PATH)",
    "tokenizers-1.0.0rc3": "import tokenizers; tok = tokenizers.Tokenizer.from_file(PATH)",
    "tokenizers-0.23.3": "import tokenizers; tok = tokenizers.Tokenizer.from_file(PATH)",
}
WORKER = r'''
import hashlib, json, statistics, sys, time
PATH, PASSES = sys.argv[1], int(sys.argv[2])
lines = [s for s in open(sys.argv[3], encoding="utf-8").read().split("\n") if s][:3852][-2000:]
exec(sys.argv[4])
enc = tok.encode
def digest(rows):
    h = hashlib.sha256()
    for r in rows:
        h.update(json.dumps(list(r)).encode())
    return h.hexdigest()[:16]
calls = {
    "encode().ids": lambda: [enc(x).ids for x in lines],
    "encode()": lambda: [enc(x) for x in lines],
    "encode_batch": lambda: tok.encode_batch(lines),
}
out = {"digest": digest(enc(x).ids for x in lines), "batch_digest": digest(e.ids for e in tok.encode_batch(lines))}
for name, call in calls.items():
    call()
    times = []
    for _ in range(PASSES):
        t0 = time.process_time()
        call()
        times.append((time.process_time() - t0) / len(lines) * 1e6)
    out[name] = statistics.median(times)
print("RESULT " + json.dumps(out))
'''


def make_files():
    """The trained tokenizer files (made once; tokenizers 0.23.3's trainers)."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    os.makedirs(CACHE, exist_ok=True)
    paths = {k: os.path.join(CACHE, k + ".json") for k in ("bytelevel", "unigram", "wordlevel", "bpe", "modernbert")}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    with open(os.path.join(CORPUS, "en-large.txt"), encoding="utf-8") as f:
        lines = [s for s in f.read(4_000_000).split("\n") if s]
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    t = Tokenizer(models.BPE())
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    t.decoder = decoders.ByteLevel()
    t.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    t.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=32000, special_tokens=specials,
                                                     initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    t.save(paths["bytelevel"])
    u = Tokenizer(models.Unigram())
    u.normalizer = normalizers.NFKC()
    u.pre_tokenizer = pre_tokenizers.Metaspace()
    u.decoder = decoders.Metaspace()
    u.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=32000, special_tokens=specials, unk_token="<unk>"))
    u.post_processor = processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
                                                     special_tokens=[("<s>", 0), ("</s>", 2)])
    u.save(paths["unigram"])
    bert_specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    cls_sep = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                            special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    w = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    w.pre_tokenizer = pre_tokenizers.Whitespace()
    w.train_from_iterator(lines, trainers.WordLevelTrainer(vocab_size=32000, special_tokens=bert_specials))
    w.post_processor = cls_sep
    w.save(paths["wordlevel"])
    b = Tokenizer(models.BPE(unk_token="[UNK]"))
    b.pre_tokenizer = pre_tokenizers.Whitespace()
    b.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=32000, special_tokens=bert_specials))
    b.post_processor = cls_sep
    b.save(paths["bpe"])
    m = Tokenizer(models.BPE())
    m.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    m.decoder = decoders.ByteLevel()
    m.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=32000, special_tokens=bert_specials,
                                                     initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    m.post_processor = cls_sep
    m.save(paths["modernbert"])
    return paths


BASE = None  # --base: the directory holding the earlier build's bertpiece package


def run(engine, path, passes):
    env = dict(os.environ, RAYON_NUM_THREADS="1", RAYON_RS_NUM_CPUS="1", TOKENIZERS_PARALLELISM="true")
    env.pop("PYTHONPATH", None)
    if engine == "bertpiece":
        env["PYTHONPATH"] = os.path.join(ROOT, "python")
    elif engine == "bertpiece-base":
        env["PYTHONPATH"] = BASE
    cpu = str(min(os.sched_getaffinity(0)))
    cmd = ["taskset", "-c", cpu, PY[engine], "-c", WORKER, path, str(passes),
           os.path.join(CORPUS, "ud-en.txt"), LOAD[engine]]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1][:200]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", default="bytelevel,unigram,bert,wordlevel,bpe,modernbert")
    ap.add_argument("--engines", default=",".join(PY))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--passes", type=int, default=7)
    ap.add_argument("--base", help="also run the bertpiece package in this directory (an earlier build)")
    a = ap.parse_args()
    global BASE
    if a.base:
        BASE = os.path.abspath(a.base)
        PY["bertpiece-base"], LOAD["bertpiece-base"] = PY["bertpiece"], LOAD["bertpiece"]
    paths = make_files()
    paths["bert"] = os.path.join(ROOT, ".cache", "bert-peers", "bert-base-multilingual-cased.json")
    engines = a.engines.split(",") + (["bertpiece-base"] if a.base else [])
    calls = ("encode().ids", "encode()", "encode_batch")
    print(f"load average {os.getloadavg()[0]:.2f}; CPU µs per text, median of {a.rounds} rounds x {a.passes} passes")
    extra = " bertpiece / base |" if a.base else ""
    print("| file | call | " + " | ".join(engines) + " | bertpiece / fastest of tokie, tokenizers 1.0 |" + extra)
    print("|---|---|" + "---|" * (len(engines) + 1 + bool(a.base)))
    for f in a.files.split(","):
        if not os.path.exists(paths[f]):
            print(f"| {f} | (no file {paths[f]}) |")
            continue
        res = {e: [] for e in engines}
        for _ in range(a.rounds):
            for e in engines:
                res[e].append(run(e, paths[f], a.passes))
        ref = run("tokenizers-0.23.3", paths[f], 1) if "tokenizers-0.23.3" not in engines else res["tokenizers-0.23.3"][0]
        for call in calls:
            cells, vals = [], {}
            for e in engines:
                rs = res[e]
                if any("error" in r for r in rs):
                    cells.append("error: " + next(r["error"] for r in rs if "error" in r))
                    continue
                key = "batch_digest" if call == "encode_batch" else "digest"
                vals[e] = statistics.median(r[call] for r in rs)
                cells.append(f"{vals[e]:.2f}" + (" ≠" if rs[0][key] != ref[key] else ""))
            peers = [vals[p] for p in ("tokie", "tokenizers-1.0.0rc3") if p in vals]
            ratio = f"{vals['bertpiece'] / min(peers):.2f}x" if peers and "bertpiece" in vals else "-"
            if a.base:
                base = vals.get("bertpiece-base")
                ratio += f" | {vals['bertpiece'] / base:.2f}x" if base and "bertpiece" in vals else " | -"
            print(f"| {f} | {call} | " + " | ".join(cells) + f" | {ratio} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}; ≠: ids other than tokenizers 0.23.3's")


if __name__ == "__main__":
    sys.exit(main())
