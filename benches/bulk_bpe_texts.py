"""Where the byte-level BPE bulk call's time goes, by changing the text and not
the code: one build's bulk call (ids only, one thread) on texts of the same
size that differ in one thing each, taking turns in one process (CPU MB/s,
medians of rounds x reps calls):

- `real`: the first --mb MB of en-large, as the other benches use;
- `shuffled`: the same text's words (cut at whitespace) drawn at random with
  their frequencies, 55 to a line: the same vocabulary and Zipf counts, the
  words in an order no branch predictor can learn;
- `shuffled-small`: the words of the first --small KB drawn the same way: a
  vocabulary of a few thousand words (a word cache of ~200 KB), random order;
- `joined`: the real lines joined eight at a time with a space (the same
  words in the same order, an eighth as many texts);
- `repeated-small`: the first --small KB repeated: the same small vocabulary,
  the same words in the same order again and again (a sequence the branch
  predictor can learn; each line a copy of its own, so the text still
  streams from memory).

`real` against `joined` is what the call costs per text;
`real` against `shuffled` checks the drawing keeps the real text's speed;
`shuffled` against `shuffled-small` is the cost of the word cache's size
(the rarer words' slots missing the caches); `shuffled-small` against
`repeated-small` the cost of the branches the predictor gets wrong on text
it has not seen.

    RAYON_NUM_THREADS=1 taskset -c 0 python benches/bulk_bpe_texts.py BUILD [--rounds 9]
"""

import argparse
import os
import random
import statistics
import time

from bulk_bpe_rounds import CORPUS, load_core, material  # benches/ is the script's directory


def drawn(words, size, seed):
    """Lines of 55 words drawn at random from `words` (with their repeats: their frequencies), `size` bytes."""
    rng = random.Random(seed)
    lines, n = [], 0
    while n < size:
        line = " ".join(rng.choice(words) for _ in range(55))
        lines.append(line)
        n += len(line.encode("utf-8")) + 1
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--small", type=int, default=50, help="KB of text for the small vocabulary")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tokenizer", default=None)
    args = ap.parse_args()
    path, tokenizer_json, lines, mb = material(args.corpus, args.mb, args.tokenizer)
    size = int(mb * 1e6)
    with open(args.corpus, encoding="utf-8") as f:
        small = f.read(args.small * 1000)
    small = small[: small.rfind("\n") + 1].split("\n")[:-1]
    texts = {
        "real": lines,
        "joined": [" ".join(lines[k:k + 8]) for k in range(0, len(lines), 8)],
        "shuffled": drawn(" ".join(lines).split(), size, 1),
        "shuffled-small": drawn(" ".join(small).split(), size, 2),
        # copies, not the same str objects again: the text streams from memory as the others' does
        "repeated-small": [t.encode("utf-8").decode("utf-8") for _ in range(size // len("\n".join(small).encode("utf-8")))
                           for t in small],
    }
    core = load_core(args.build, 0)
    tok = core.PipelineTokenizer.from_str(tokenizer_json, True)
    settings = tok.stored_settings()
    sizes = {name: sum(len(t.encode("utf-8")) + 1 for t in ts) / 1e6 for name, ts in texts.items()}
    speeds = {name: [] for name in texts}
    for _ in range(args.rounds):
        for name, ts in texts.items():
            call = lambda: core.pipeline_encode_flat(tok, settings, ts, add_special_tokens=False,
                                                     return_offsets=False, num_threads=1)
            call()  # warm-up: the word cache holds every word of the text after it
            for _ in range(args.reps):
                t0 = time.process_time()
                call()
                speeds[name].append(sizes[name] / (time.process_time() - t0))
    print(f"tokenizer {path}; build {args.build}; load average {os.getloadavg()[0]:.2f}")
    ref = statistics.median(speeds["real"])
    for name, v in speeds.items():
        distinct = len({w for t in texts[name] for w in t.split()})
        med = statistics.median(v)
        print(f"{name:15s} {sizes[name]:5.2f} MB, {distinct:6d} distinct words: CPU MB/s median {med:6.1f}"
              f"  max {max(v):6.1f}  vs real {med / ref:.2f}")


if __name__ == "__main__":
    main()
