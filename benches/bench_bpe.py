"""First speed measurement of bertpiece.Tokenizer (byte-level BPE) against
tokenizers 0.23.3 on the same tokenizer.json.

A GPT-2-shaped tokenizer (vocabulary 8000) is trained with HF's trainer on the
UD samples, then both libraries encode the first 8 MB of en-large
(/work/shared/data/corpus/en-large.txt, one text per line) with encode_batch
(all cores) and with encode one text at a time (one thread). Ids, offsets and
word ids are checked equal before any time is reported.

    python benches/bench_bpe.py [--corpus PATH] [--mb 8] [--repeat 3]
"""

import argparse
import glob
import os
import time

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

import bertpiece

HERE = os.path.dirname(os.path.abspath(__file__))


def gpt2_shaped(vocab_size):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train(sorted(glob.glob(os.path.join(HERE, "..", "tests", "data", "ud-*.txt"))), trainer)
    return tok.to_str()


def read_lines(path, mb):
    with open(path, encoding="utf-8") as f:
        text = f.read(mb * 1_000_000)
    return [line for line in text.split("\n") if line]


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    ap.add_argument("--mb", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--vocab-size", type=int, default=8000)
    args = ap.parse_args()
    text = gpt2_shaped(args.vocab_size)
    ours, theirs = bertpiece.Tokenizer.from_str(text), Tokenizer.from_str(text)
    lines = read_lines(args.corpus, args.mb)
    mb = sum(len(line.encode("utf-8")) for line in lines) / 1e6
    a, b = ours.encode_batch(lines), theirs.encode_batch(lines)
    for x, y in zip(a, b):
        assert (x.ids, x.offsets, x.word_ids) == (y.ids, y.offsets, y.word_ids), "outputs differ"
    print(f"{len(lines)} lines, {mb:.1f} MB, outputs identical; CPUs: {os.cpu_count()}")
    for name, fn in [
        ("bertpiece encode_batch (all cores)", lambda: ours.encode_batch(lines)),
        ("tokenizers encode_batch (all cores)", lambda: theirs.encode_batch(lines)),
        ("bertpiece encode, 1 thread", lambda: [ours.encode(s) for s in lines]),
        ("tokenizers encode, 1 thread", lambda: [theirs.encode(s) for s in lines]),
    ]:
        t = best(fn, args.repeat)
        print(f"{name:40s} {t:7.2f} s  {mb / t:6.2f} MB/s")


if __name__ == "__main__":
    main()
