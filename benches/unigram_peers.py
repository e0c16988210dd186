"""One engine's timings on one tokenizer and text, run in a subprocess with
the engine's own venv's python (bench_unigram.py starts it):

    python unigram_peers.py ENGINE TOKENIZER_JSON SPM_MODEL CORPUS MB MODES [SKIP_MB]

ENGINE is bertpiece, hf (tokenizers in that venv: 0.23.3 or 1.0.0rc3),
tokie, kitoken or sentencepiece (on SPM_MODEL, "-" when there is none).
MODES is a comma list of one (encode one text at a time), batch (the engine's
batch call returning per-text results) and bulk (its ids-only call into one
buffer, where it has one). Prints one JSON line: load seconds, each mode's
seconds, peak RSS, and a digest of every text's ids (no special tokens) so the
driver can check each engine against tokenizers 0.23.3 before reporting it.
Threads: the driver pins the process (taskset) and sets RAYON_NUM_THREADS.
"""

import array
import hashlib
import json
import os
import resource
import sys
import time

from corpus_text import head


def load(engine, tokenizer_json, spm_model):
    """(one, batch, bulk) callables returning ids: per text, per batch, and bulk (None when the engine has
    none) as (flat ids, row lengths) arrays, made into rows only after the clock stops."""
    if engine == "bertpiece":
        import bertpiece

        tok = bertpiece.Tokenizer.from_file(tokenizer_json)
        threads = int(os.environ.get("RAYON_NUM_THREADS", "1"))

        def bulk(xs):
            b = tok.encode_batch_arrays(xs, add_special_tokens=False, num_threads=threads)
            return b.ids, b.row_splits[1:] - b.row_splits[:-1]

        return (lambda s: tok.encode(s, add_special_tokens=False).ids,
                lambda xs: [e.ids for e in tok.encode_batch(xs, add_special_tokens=False)], bulk)
    if engine == "hf":
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(tokenizer_json)
        return (lambda s: tok.encode(s, add_special_tokens=False).ids,
                lambda xs: [e.ids for e in tok.encode_batch(xs, add_special_tokens=False)], None)
    if engine == "tokie":
        import tokie

        tok = tokie.Tokenizer.from_json(tokenizer_json)

        def bulk(xs):
            return tok.encode_batch_flat(xs, add_special_tokens=False)

        return (lambda s: list(tok.encode(s, add_special_tokens=False).ids),
                lambda xs: [list(e.ids) for e in tok.encode_batch(xs, add_special_tokens=False)], bulk)
    if engine == "kitoken":
        import kitoken

        tok = kitoken.Kitoken.from_tokenizers_file(tokenizer_json)
        return (lambda s: list(tok.encode(s, False)), lambda xs: [list(x) for x in tok.encode_all(xs, False)], None)
    if engine == "sentencepiece":
        import sentencepiece as spm

        sp = spm.SentencePieceProcessor(model_file=spm_model)
        threads = int(os.environ.get("RAYON_NUM_THREADS", "1"))
        return (lambda s: sp.encode(s), lambda xs: sp.encode(xs, num_threads=threads), None)
    raise SystemExit(f"unknown engine {engine!r}")


def main():
    engine, tokenizer_json, spm_model, corpus, mb, modes = sys.argv[1:7]
    skip_mb = float(sys.argv[7]) if len(sys.argv) > 7 else 0.0
    # Before any clock: bertpiece's and tokie's bulk calls return NumPy arrays, and the first call of either
    # imported NumPy (~40-65 ms of CPU here, as long as the bulk call itself): timed as "bulk" until 2026-11-27.
    import numpy  # noqa: F401
    lines = [line for line in head(corpus, float(mb), skip_mb).split("\n") if line]
    t = time.perf_counter()
    one, batch, bulk = load(engine, tokenizer_json, spm_model)
    out = {"engine": engine, "load_s": time.perf_counter() - t, "bytes": sum(len(s.encode()) for s in lines)}
    digest_ids = None
    for mode in modes.split(","):
        fn = {"one": lambda: [one(s) for s in lines], "batch": lambda: batch(lines), "bulk": bulk and (lambda: bulk(lines))}[mode]
        if fn is None:
            continue
        # The previous mode's rows are freed before the clock: rebinding `ids` would free them inside it
        # (100k Python lists took 60-70 ms to free here, as long as bertpiece's whole bulk call).
        ids = None
        t, c = time.perf_counter(), time.process_time()
        ids = fn()
        out[mode + "_s"] = time.perf_counter() - t
        out[mode + "_cpu_s"] = time.process_time() - c  # (all the process's threads)
        if mode == "bulk":
            ends = ids[1].cumsum().tolist()
            flat = ids[0].tolist()
            ids = [flat[a:b] for a, b in zip([0] + ends[:-1], ends)]
        h = hashlib.sha256()
        for x in ids:
            h.update(array.array("q", map(int, x)).tobytes() + b";")
        digest = h.hexdigest()
        if digest_ids not in (None, digest):
            out["error"] = f"{mode} gives other ids than the engine's first mode"
        digest_ids = digest
    out["ids_sha256"] = digest_ids
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


if __name__ == "__main__":
    main()
