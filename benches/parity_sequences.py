"""Parity in sequences of calls: random sequences of encodes and setting changes on bertpiece.Tokenizer and
tokenizers 0.23.3's Tokenizer of the same file, the encodings kept and read later — after the settings they
were made under have changed (`e = tok.encode(s); tok.add_tokens([...]); e.tokens` is the Encoding made
then) — with pickled/copied tokenizers, a second tokenizer interleaved on the same thread, calls that raise,
the bulk call, and threads sharing the tokenizer. Stops at the first difference and prints the steps.

    nice -n 10 python benches/parity_sequences.py [--files a,b] [--sequences 40] [--steps 40] [--seed 0]

Files: benches/parity_sweep.py's (tokenizer.json ones). docs/parity-sweep.md has what was run."""

import argparse
import concurrent.futures
import copy
import pickle
import random
import sys

import numpy as np

from parity_sweep import COLUMNS, bert_json, BERT, pipeline_files
from parity_sweep_texts import corpus_lines, edge_lines, synthetic_lines

ATTRS = COLUMNS + ("overflowing", "n_sequences", "len")


def read(enc, attr):
    if attr == "overflowing":
        return [{a: getattr(o, a) for a in COLUMNS} for o in enc.overflowing]
    if attr == "len":
        return len(enc)
    return getattr(enc, attr)


class Pair:
    """bertpiece's and tokenizers' tokenizer of one file, the encodings each call made, the steps taken."""

    def __init__(self, text, lines, rng, other):
        import bertpiece
        from tokenizers import Tokenizer as HFTokenizer

        self.ours, self.theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
        self.other = other  # (ours, theirs) of another file, called on the same thread
        self.lines, self.rng, self.kept, self.steps = lines, rng, [], []

    def text(self):
        r = self.rng.random()
        if r < 0.05:
            return ""
        line = self.rng.choice(self.lines)
        if r < 0.15 and self.kept_words():
            words = line.split(" ")
            words.insert(self.rng.randrange(len(words) + 1), self.rng.choice(self.kept_words()))
            line = " ".join(words)
        return line

    def kept_words(self):
        return [t.content for t in self.theirs.get_added_tokens_decoder().values()]

    def check(self, what, got, want):
        if got != want:
            while isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
                k = next(k for k, (g, w) in enumerate(zip(got, want)) if g != w)
                what, got, want = f"{what}[{k}]", got[k], want[k]
            steps = "\n  ".join(self.steps[-25:])
            raise AssertionError(f"{what} differs:\n ours   {str(got)[:400]}\n theirs {str(want)[:400]}\nsteps:\n  {steps}")

    def step(self):
        ops = [self.encode, self.encode_batch, self.read_kept, self.read_kept, self.read_kept, self.add_tokens,
               self.truncation, self.padding, self.bulk, self.copy, self.interleave, self.bad_call, self.threads,
               self.pair_call]
        self.rng.choice(ops)()

    def both(self, call):
        """call(ours), call(theirs); None when they raised (both must: a truncation strategy tokenizers refuses)."""
        out = []
        for t in (self.ours, self.theirs):
            try:
                out.append(call(t))
            except (Exception, BaseException) as e:  # noqa: BLE001 (tokenizers: a bare Exception, or a panic)
                if isinstance(e, KeyboardInterrupt):
                    raise
                out.append(e)
        raised = [isinstance(x, BaseException) for x in out]
        self.check("raised", [repr(x) if r else "no error" for x, r in zip(out, raised)][0] if raised[0] != raised[1]
                   else raised[0], raised[1] if raised[0] != raised[1] else raised[0])
        return None if raised[0] else out

    def encode(self):
        s, special = self.text(), self.rng.random() < 0.8
        self.steps.append(f"e{len(self.kept)} = encode({s[:40]!r}, add_special_tokens={special})")
        made = self.both(lambda t: t.encode(s, add_special_tokens=special))
        if made:
            self.kept.append(made)

    def pair_call(self):
        a, b = self.text(), self.text()
        self.steps.append(f"e{len(self.kept)} = encode({a[:30]!r}, {b[:30]!r})")
        made = self.both(lambda t: t.encode(a, b))
        if made:
            self.kept.append(made)

    def encode_batch(self):
        texts = [self.text() for _ in range(self.rng.choice([0, 1, 3, 40, 300]))]
        self.steps.append(f"e{len(self.kept)}.. = encode_batch({len(texts)} texts)")
        made = self.both(lambda t: t.encode_batch(texts))
        if made:
            self.check("batch length", len(made[0]), len(made[1]))
            self.kept.extend(zip(*made))

    def read_kept(self):
        if not self.kept:
            return
        k = self.rng.randrange(len(self.kept))
        attr = self.rng.choice(ATTRS)
        self.steps.append(f"e{k}.{attr}")
        ours, theirs = self.kept[k]
        if self.rng.random() < 0.1:
            ours = pickle.loads(pickle.dumps(ours))
            self.steps.append("  (through pickle)")
        self.check(f"e{k}.{attr}", read(ours, attr), read(theirs, attr))

    def add_tokens(self):
        words = [w for w in self.rng.choice(self.lines).split() if w][:3] or ["xyz"]
        special = self.rng.random() < 0.4
        self.steps.append(f"add_{'special_' if special else ''}tokens({words})")
        add = (lambda t: t.add_special_tokens(words)) if special else (lambda t: t.add_tokens(words))
        self.check("added count", add(self.ours), add(self.theirs))

    def truncation(self):
        if self.rng.random() < 0.3:
            self.steps.append("no_truncation()")
            self.ours.no_truncation(), self.theirs.no_truncation()
            return
        n = self.rng.choice([1, 2, 5, 8, 16, 64])
        stride = self.rng.choice([0, 0, 1, 3])
        stride = min(stride, max(0, n - 4))
        strategy = self.rng.choice(["longest_first", "only_first", "only_second"])
        direction = self.rng.choice(["right", "left"])
        self.steps.append(f"enable_truncation({n}, stride={stride}, strategy={strategy!r}, direction={direction!r})")
        for t in (self.ours, self.theirs):
            t.enable_truncation(n, stride=stride, strategy=strategy, direction=direction)
        self.check("truncation", self.ours.truncation, self.theirs.truncation)

    def padding(self):
        if self.rng.random() < 0.3:
            self.steps.append("no_padding()")
            self.ours.no_padding(), self.theirs.no_padding()
            return
        kw = dict(direction=self.rng.choice(["right", "left"]), pad_id=self.rng.choice([0, 3]),
                  length=self.rng.choice([None, None, 8, 70]), pad_to_multiple_of=self.rng.choice([None, 8]))
        self.steps.append(f"enable_padding(**{kw})")
        for t in (self.ours, self.theirs):
            t.enable_padding(**kw)

    def bulk(self):
        texts = [self.text() for _ in range(self.rng.choice([1, 50, 500]))]
        threads = self.rng.choice([1, 2])
        offsets = self.rng.random() < 0.5
        self.steps.append(f"encode_batch_arrays({len(texts)} texts, num_threads={threads}, return_offsets={offsets})")
        try:
            got = self.ours.encode_batch_arrays(texts, num_threads=threads, return_offsets=offsets)
        except ValueError as e:  # a truncation the bulk call refuses (docs/pipeline-api.md)
            self.steps.append(f"  -> ValueError {e}")
            return
        try:
            encs = self.theirs.encode_batch(texts)
        except BaseException:  # noqa: BLE001
            raise AssertionError(f"tokenizers raised where the bulk call did not; steps: {self.steps[-10:]}") from None
        want = [(e.ids, e.offsets) for e in encs]
        if self.theirs.padding is not None:
            return  # padding never applies to the bulk call's rows; tokenizers' rows are padded
        for i, (ids, offs) in enumerate(want):
            a, b = got.row_splits[i], got.row_splits[i + 1]
            self.check(f"bulk row {i} ids ({texts[i][:40]!r})", got.ids[a:b].tolist(), ids)
            if offsets:
                self.check(f"bulk row {i} offsets", [tuple(p) for p in got.offsets[a:b].tolist()], offs)

    def copy(self):
        how = self.rng.choice(["pickle", "deepcopy", "copy"])
        self.steps.append(f"tok = {how}(tok)")
        f = {"pickle": lambda t: pickle.loads(pickle.dumps(t)), "deepcopy": copy.deepcopy, "copy": copy.copy}[how]
        self.ours, self.theirs = f(self.ours), f(self.theirs)

    def interleave(self):
        ours, theirs = self.other
        texts = [self.text() for _ in range(self.rng.choice([1, 30]))]
        self.steps.append(f"other.encode_batch_arrays / encode of {len(texts)} texts")
        got = ours.encode_batch_arrays(texts, num_threads=1, add_special_tokens=False)
        want = np.concatenate([np.asarray(e.ids, np.int64) for e in theirs.encode_batch(texts, add_special_tokens=False)]
                              + [np.zeros(0, np.int64)])
        self.check("other tokenizer's bulk ids", got.ids.tolist(), want.tolist())
        s = texts[0]
        self.check("other tokenizer's encode", ours.encode(s).ids, theirs.encode(s).ids)

    def bad_call(self):
        texts = [self.text(), 42, self.text()] if self.rng.random() < 0.5 else [self.text(), "\ud800x", self.text()]
        call = self.rng.choice(["encode_batch", "encode_batch_arrays"])
        self.steps.append(f"{call}({texts!r:.60}) raises")
        try:
            getattr(self.ours, call)(texts)
        except (TypeError, ValueError, UnicodeError):
            pass
        else:
            raise AssertionError(f"{call} of a bad batch did not raise; steps: {self.steps[-10:]}")

    def threads(self):
        texts = [self.text() for _ in range(64)]
        self.steps.append("4 threads encode 64 texts each, sharing the tokenizer")
        try:
            want = [self.theirs.encode(t).ids for t in texts]  # (a batch would pad to its longest)
        except BaseException:  # noqa: BLE001 (a truncation tokenizers refuses: the sequence steps are still compared)
            return
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            runs = list(pool.map(lambda k: [self.ours.encode(t).ids for t in texts[k:] + texts[:k]], range(4)))
        for k, run in enumerate(runs):
            self.check(f"thread {k}'s ids", run, want[k:] + want[:k])


def file_text(label):
    if label in BERT:
        return bert_json(*BERT[label])
    with open(pipeline_files()[label], encoding="utf-8") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    files = [*pipeline_files(), *BERT]
    ap.add_argument("--files", default=",".join(files))
    ap.add_argument("--sequences", type=int, default=40)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    from tokenizers import Tokenizer as HFTokenizer

    import bertpiece

    lines = ([x for x in corpus_lines("ud-en.txt")[:400] + corpus_lines("ud-ja.txt")[:200]
              + corpus_lines("ud-hi.txt")[:200]] + synthetic_lines(5_000, per_line=12)
             + [x for x in edge_lines() if len(x) < 20_000])
    other_text = file_text("gpt2-ranks-roberta" if "gpt2-ranks-roberta" in files else files[0])
    other = (bertpiece.Tokenizer.from_str(other_text), HFTokenizer.from_str(other_text))
    failed = 0
    for label in args.files.split(","):
        text = file_text(label)
        for n in range(args.sequences):
            rng = random.Random(f"{args.seed}-{label}-{n}")
            pair = Pair(text, lines, rng, other)
            try:
                for _ in range(args.steps):
                    pair.step()
                for k in range(len(pair.kept)):  # every kept encoding read at the end, every column
                    for attr in ATTRS:
                        pair.check(f"e{k}.{attr} (final)", read(pair.kept[k][0], attr), read(pair.kept[k][1], attr))
            except AssertionError as e:
                failed += 1
                print(f"{label} sequence {n}: {e}", flush=True)
                break
        print(f"{label}: {n + 1} sequences of {args.steps} steps{' ' if not failed else ', FAILED'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
