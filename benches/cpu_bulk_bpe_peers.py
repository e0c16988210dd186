"""CPU time of the byte-level BPE bulk calls of bertpiece builds and fastokens
IN ONE PROCESS, taking turns: on a shared machine, wall-clock MB/s of runs
minutes apart (bench_pipeline.py) move by a third; CPU time of calls
interleaved seconds apart much less. One thread each: run it pinned to one
CPU with fastokens' pool at one thread (its venv holds fastokens; the
builds' `_core` are loaded as ab_bulk_bpe.py does, the rounds and the
report are benches/bulk_bpe_rounds.py's):

    RAYON_NUM_THREADS=1 taskset -c 0 python benches/cpu_bulk_bpe_peers.py BUILD [BUILD...] [--rounds 5] [--tokenizer FILE]

fastokens' call is bench_pipeline.py's "bulk" (`encode_batch_flat`, its ids
made an array); bertpiece's is `pipeline_encode_flat` (ids only, made the
same array). The ids of every engine must be equal (sha256). Two threads:
`--threads 2` for bertpiece and RAYON_NUM_THREADS=2 for fastokens, not
pinned (CPU time then sums both threads; wall-clock MB/s are reported too):

    RAYON_NUM_THREADS=2 python benches/cpu_bulk_bpe_peers.py BUILD --threads 2

Other peers of the same venv, in the same rounds: `--peers fastokens,tokie,gigatoken`
(tokie's `encode_batch_flat`, gigatoken's `encode_batch_list` concatenated);
`tokenizers` (the venv's 0.23.3, `encode_batch`'s ids concatenated) is the reference;
a peer that refuses the file, or whose ids differ from the first build's on
the first call, is listed as such and left out of the rounds; the ratios are
against the first peer left (the first build's when none is).

The peers run in this process, so the script runs itself again with the
python of the pinned peers' venv (benches/peer_venvs.py, made on first use)
when the interpreter starting it has no fastokens.
"""

import argparse
import array
import hashlib
import importlib.util
import os
import sys

if importlib.util.find_spec("fastokens") is None:  # not the peers' venv: run again in it
    from peer_venvs import peer_python  # benches/ is the script's directory

    python = peer_python("all")
    os.execv(python, [python, *sys.argv])

import numpy as np  # noqa: E402

from bulk_bpe_rounds import add_common_arguments, load_core, material, report, run_rounds  # benches/ is the script's directory


def main():
    ap = argparse.ArgumentParser()
    add_common_arguments(ap)
    ap.add_argument("--threads", type=int, default=1, help="bertpiece's num_threads (fastokens': RAYON_NUM_THREADS)")
    ap.add_argument("--tokenizer", default=None, help="default: bench_pipeline.py's cached file")
    ap.add_argument("--peers", default="fastokens", help="of " + ",".join(PEERS))
    args = ap.parse_args()
    path, tokenizer_json, lines, mb = material(args.corpus, args.mb, args.tokenizer, args.skip_mb)
    calls = {}
    for i, build in enumerate(args.builds):
        core = load_core(build, i)
        tok = core.PipelineTokenizer.from_str(tokenizer_json, True)
        settings = tok.stored_settings()
        calls[build] = (lambda core=core, tok=tok, settings=settings: np.asarray(core.pipeline_encode_flat(
            tok, settings, lines, add_special_tokens=False, num_threads=args.threads)[0]).astype(np.uint32).tobytes())
    want = hashlib.sha256(calls[args.builds[0]]()).hexdigest()
    exact_peers = []
    for name in [p for p in args.peers.split(",") if p]:
        try:
            call = PEERS[name](path, lines)
            same = hashlib.sha256(call()).hexdigest() == want
        except Exception as e:  # noqa: BLE001 - a peer's refusal is reported, whatever it raises
            print(f"{name}: refuses the file: {type(e).__name__}: {str(e).strip().splitlines()[0][:160] if str(e).strip() else ''}")
            continue
        if not same:
            print(f"{name}: ids differ from {args.builds[0]}'s: left out")
            continue
        calls[name] = call
        exact_peers.append(name)
    wall = {}
    speeds, digests = run_rounds(calls, mb, args.rounds, args.reps, wall=wall)
    report(f"tokenizer {path}; text {mb:.2f} MB, {len(lines)} lines; bertpiece threads {args.threads}, RAYON_NUM_THREADS "
           f"{os.environ.get('RAYON_NUM_THREADS', 'unset')}", speeds, digests, (exact_peers or args.builds)[0], wall)


def _fastokens(path, lines):
    import fastokens

    tok = fastokens.Tokenizer.from_file(path)
    return lambda: array.array("I", tok.encode_batch_flat(lines)[0]).tobytes()


def _tokie(path, lines):
    import tokie

    tok = tokie.Tokenizer.from_json(path)
    return lambda: np.asarray(tok.encode_batch_flat(lines)[0]).astype(np.uint32).tobytes()


def _gigatoken(path, lines):
    import gigatoken

    tok = gigatoken.Tokenizer(path)
    return lambda: np.concatenate([np.asarray(r, dtype=np.uint32) for r in tok.encode_batch_list(lines)]).tobytes()


def _tokenizers(path, lines):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(path)
    return lambda: np.concatenate([np.asarray(e.ids, dtype=np.uint32) for e in tok.encode_batch(lines, add_special_tokens=False)]).tobytes()


PEERS = {"fastokens": _fastokens, "tokie": _tokie, "gigatoken": _gigatoken, "tokenizers": _tokenizers}


if __name__ == "__main__":
    main()
