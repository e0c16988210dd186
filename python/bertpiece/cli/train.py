"""train: learn a WordPiece vocab.txt (or a BPE tokenizer.json) from a corpus (.txt/.jsonl/.parquet, .gz/.zst, or -).

Words are counted with the normalization of the tokenizer that will use the
vocabulary (--reference, --lowercase, --strip-accents, --chinese-chars), in
parallel and streaming (memory grows with the unique words, not the corpus),
then merged: --algorithm hf (HF tokenizers' WordPieceTrainer, merging the most
frequent pair; default) or likelihood (WordPiece's textbook score
count(ab)/(count(a)*count(b)), which favours rare pairs: on held-out text
1.46x the tokens per word of hf in English, up to 2.8x in other languages).
The output appears whole or not at all: an interrupted run leaves no
vocab.txt. --model bpe / byte-bpe trains BPE as HF's BpeTrainer does
(character-level on BERT-normalized words, or byte-level GPT-2 style) and
writes a tokenizer.json that HF tokenizers loads. See docs/train.md and docs/train-bpe.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

__all__ = ["add_parser", "run"]


_UNSET = object()  # --limit-alphabet not given (None is "none": no limit)


def _limit(value: str):
    if value.lower() == "none":
        return None
    n = int(value)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0 or none, got {value}")
    return n


def add_parser(sub):
    from ..training import DEFAULT_SPECIAL_TOKENS

    p = sub.add_parser("train", help=__doc__.split(": ", 1)[1].split("\n")[0], description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="CORPUS",
                   help="input files (.txt, .jsonl, .parquet, optionally .gz/.zst) or - for stdin lines")
    p.add_argument("-o", "--output", required=True, help="the vocab.txt (BPE: tokenizer.json) to write")
    p.add_argument("--model", default="wordpiece", choices=["wordpiece", "bpe", "byte-bpe"],
                   help="wordpiece (default): vocab.txt; bpe: character-level BPE (HF CharBPETokenizer's "
                        "normalization); byte-bpe: byte-level BPE (GPT-2's); both BPE write tokenizer.json")
    p.add_argument("--vocab-size", type=int, help="tokens in the vocabulary (default 30522; BPE: 30000)")
    p.add_argument("--algorithm", choices=["hf", "likelihood"],
                   help="hf: HF tokenizers' WordPieceTrainer (default); likelihood: WordPiece's textbook score "
                        "(1.46x longer sequences on held-out English, see above)")
    p.add_argument("--reference", choices=["google", "transformers", "tokenizers"],
                   help="whose normalization (default: tokenizers; google with --algorithm likelihood)")
    p.add_argument("--lowercase", action=argparse.BooleanOptionalAction,
                   help="lowercase (default for wordpiece; not for bpe, as HF's CharBPETokenizer)")
    p.add_argument("--strip-accents", action=argparse.BooleanOptionalAction, default=None,
                   help="strip accents (default: when lowercasing)")
    p.add_argument("--chinese-chars", action=argparse.BooleanOptionalAction, default=True,
                   help="split CJK characters into words of their own (default)")
    p.add_argument("--min-frequency", type=int, help="never merge a rarer pair (default 2; BPE: 0)")
    p.add_argument("--limit-alphabet", type=_limit, default=_UNSET, metavar="N",
                   help="keep the N most frequent characters (default 1000; BPE: none; none: all)")
    p.add_argument("--initial-alphabet", default="", metavar="CHARS", help="characters always in the alphabet")
    p.add_argument("--special-tokens", nargs="*", metavar="TOKEN",
                   help="first in the vocabulary, in this order (default: " + " ".join(DEFAULT_SPECIAL_TOKENS) +
                        f"; bpe: {' '.join(BPE_SPECIALS['bpe'])}; byte-bpe: {' '.join(BPE_SPECIALS['byte-bpe'])})")
    p.add_argument("--unk-token", metavar="TOKEN",
                   help="the unknown token, which must be one of the special tokens (default [UNK]; bpe: <unk>; "
                        "byte-bpe: none, every byte is in the alphabet)")
    p.add_argument("--unused-tokens", type=int, default=0, metavar="N",
                   help="reserve [unused0]..[unusedN-1] after the special tokens")
    p.add_argument("--prefix", help="continuing-subword prefix (default ##; BPE: none)")
    p.add_argument("--end-of-word-suffix", metavar="SUFFIX", help="BPE only: end-of-word suffix (e.g. </w>)")
    p.add_argument("--max-token-length", type=int, metavar="N", help="BPE only: no longer tokens")
    p.add_argument("--add-prefix-space", action="store_true", help="byte-bpe only: a space before each text")
    p.add_argument("--post-processor", choices=["gpt2", "roberta", "none"], default="gpt2",
                   help="byte-bpe only: GPT-2's (default) or RoBERTa's <s> ... </s> post-processor")
    p.add_argument("--max-input-chars-per-word", type=int, metavar="N",
                   help="do not count longer words (default: none; the reference's limit with --algorithm "
                        "likelihood)")
    p.add_argument("--field", default="text", help="jsonl field holding the text (default: text)")
    p.add_argument("--column", default="text", help="Parquet column holding the text (default: text)")
    p.add_argument("--threads", type=int, help="counting threads (default: all cores)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars and no summary")
    p.add_argument("--summary-json", metavar="FILE", help="also write the summary as JSON to FILE")
    p.set_defaults(run=run)


class Bar:
    """One progress line on stderr (only on a terminal, not with --quiet), redrawn at most 5 times a second."""

    def __init__(self, quiet: bool, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = not quiet and bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = self.last = time.monotonic()
        self.drawn = False
        self.latest = None  # the last state asked for, drawn for sure on close

    def show(self, label: str, done: float, total: float | None, detail: str, force: bool = False):
        now = time.monotonic()
        self.latest = (label, done, total, detail)
        if not self.enabled or (not force and now - self.last < 0.2):
            return
        self.last = now
        frac = min(done / total, 1.0) if total else None
        bar = f"[{'#' * int(frac * 20):<20}] {100 * frac:5.1f}%  " if frac is not None else ""
        self.stream.write(f"\r{label:<9}{bar}{detail}  {now - self.start:.0f}s\x1b[K")
        self.stream.flush()
        self.drawn = True

    def close(self):
        if self.enabled and self.latest is not None:
            latest, self.latest = self.latest, None
            self.show(*latest, force=True)
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


CLI_NAMES = {"special_tokens": "--special-tokens", "unk_token": "--unk-token", "initial_alphabet": "--initial-alphabet",
             "prefix": "--prefix"}


BPE_SPECIALS = {"bpe": ["<unk>"], "byte-bpe": ["<|endoftext|>"]}
WORDPIECE_DEFAULTS = {"vocab_size": 30522, "min_frequency": 2, "limit_alphabet": 1000, "unk_token": "[UNK]",
                      "prefix": "##"}


def run(args) -> int:
    from . import UserError
    from .io_formats import Source
    from ..training import DEFAULT_SPECIAL_TOKENS, Batches, check_token_options, train_wordpiece

    if args.model != "wordpiece":
        return run_bpe(args)
    bpe_only = [f for f in ("end_of_word_suffix", "max_token_length") if getattr(args, f) is not None]
    if bpe_only or args.add_prefix_space:
        raise UserError(f"--{(bpe_only or ['add_prefix_space'])[0].replace('_', '-')} needs --model bpe or byte-bpe")
    if args.algorithm is None:
        args.algorithm = "hf"
    for name, value in WORDPIECE_DEFAULTS.items():
        if getattr(args, name) in (None, _UNSET):
            setattr(args, name, value)
    if args.special_tokens is None:
        args.special_tokens = list(DEFAULT_SPECIAL_TOKENS)
    if args.lowercase is None:
        args.lowercase = True

    for name in ("vocab_size", "unused_tokens", "min_frequency", "threads", "max_input_chars_per_word"):
        value = getattr(args, name)
        if value is not None and value < (1 if name in ("threads", "max_input_chars_per_word") else 0):
            raise UserError(f"--{name.replace('_', '-')} must be at least "
                            f"{1 if name in ('threads', 'max_input_chars_per_word') else 0}, got {value}")
    try:  # before reading the corpus, naming the flags
        check_token_options(args.special_tokens, args.unk_token, list(args.initial_alphabet), args.prefix,
                            names=CLI_NAMES)
    except (TypeError, ValueError) as e:
        raise UserError(str(e)) from None
    if os.path.lexists(args.output) and not args.overwrite:
        raise UserError(f"{args.output} already exists (use --overwrite to replace it)")
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        raise UserError(f"cannot write {args.output}: directory {out_dir} does not exist")
    if args.inputs.count("-") > 1:
        raise UserError("stdin (-) can be read only once")
    sources = [Source(path, field=args.field, column=args.column, want_extra=False) for path in args.inputs]
    totals = [s.total_bytes for s in sources]
    total = None if None in totals else sum(totals)
    counting, merging = Bar(args.quiet), Bar(args.quiet)
    state = {"done_bytes": 0, "texts": 0}

    def batches():
        for source in sources:
            rows = 0
            for batch in source.batches(1_000):
                yield batch.texts, batch.invalid_utf8, (source.path, rows)
                rows += len(batch.texts)
                state["texts"] += len(batch.texts)
                read = state["done_bytes"] + source.bytes_read()
                counting.show("counting", read, total, f"{state['texts']:,} texts  {read / 1e6:,.1f} MB")
            state["done_bytes"] += source.bytes_read()

    def progress(stage, done, target):
        if stage == "merge":
            counting.close()
            merging.show("merging", done, target, f"{done:,}/{target:,} tokens")

    start = time.monotonic()
    try:
        vocab = train_wordpiece(
            Batches(batches()), args.vocab_size, algorithm=args.algorithm, reference=args.reference,
            do_lower_case=args.lowercase, strip_accents=args.strip_accents, tokenize_chinese_chars=args.chinese_chars,
            min_frequency=args.min_frequency, limit_alphabet=args.limit_alphabet,
            initial_alphabet=list(args.initial_alphabet), special_tokens=args.special_tokens,
            unk_token=args.unk_token, unused_tokens=args.unused_tokens, continuing_subword_prefix=args.prefix,
            max_input_chars_per_word=args.max_input_chars_per_word, num_threads=args.threads, progress=progress)
    except ValueError as e:
        raise UserError(str(e)) from None
    finally:
        counting.close()
        merging.close()
    stats = vocab.stats
    if stats["words"] - stats["long_words_skipped"] == 0:
        raise UserError("the corpus has no words to learn from (empty or only whitespace); nothing written")
    try:
        vocab.save(args.output)
    except OSError as e:
        raise UserError(f"cannot write {args.output}: {e.strerror or e}") from None
    stats = {**stats, "seconds": round(time.monotonic() - start, 3), "output": args.output}
    if not args.quiet:
        print(f"bertpiece train: {stats['words']:,} words ({stats['unique_words']:,} unique, "
              f"{stats['long_words_skipped']:,} too long), {stats['invalid_utf8_lines']:,} invalid-UTF-8 lines, "
              f"alphabet {stats['alphabet']:,}, {stats['merges']:,} merges, {stats['vocab_size']:,} tokens "
              f"({args.algorithm}), {stats['seconds']:.2f} s -> {args.output}", file=sys.stderr)
    if args.summary_json:
        with open(args.summary_json, "w", encoding="utf-8") as f:
            json.dump(stats, f, indent=2)
            f.write("\n")
    return 0


def run_bpe(args) -> int:
    """--model bpe / byte-bpe: bertpiece.trainers, writing tokenizer.json."""
    from . import UserError
    from ..trainers import BpeTrainer, ByteLevelBpeTrainer, train_bpe_from_files

    byte_level = args.model == "byte-bpe"
    specials = BPE_SPECIALS[args.model] if args.special_tokens is None else args.special_tokens
    unk = args.unk_token
    if unk is None and not byte_level and "<unk>" in specials:
        unk = "<unk>"
    if not byte_level and (args.add_prefix_space or args.post_processor != "gpt2"):
        raise UserError("--add-prefix-space and --post-processor need --model byte-bpe")
    wordpiece_only = {"algorithm": args.algorithm, "reference": args.reference, "unused_tokens": args.unused_tokens,
                      "max_input_chars_per_word": args.max_input_chars_per_word}
    for name, value in wordpiece_only.items():
        if value not in (None, 0):
            raise UserError(f"--{name.replace('_', '-')} is for --model wordpiece (BPE counts words as HF's "
                            f"BertNormalizer + BertPreTokenizer, or byte-level)")
    if args.threads is not None and args.threads < 1:
        raise UserError(f"--threads must be at least 1, got {args.threads}")
    if os.path.lexists(args.output) and not args.overwrite:
        raise UserError(f"{args.output} already exists (use --overwrite to replace it)")
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        raise UserError(f"cannot write {args.output}: directory {out_dir} does not exist")
    options = dict(vocab_size=30000 if args.vocab_size is None else args.vocab_size,
                   min_frequency=args.min_frequency or 0, show_progress=False, special_tokens=specials,
                   limit_alphabet=None if args.limit_alphabet is _UNSET else args.limit_alphabet,
                   continuing_subword_prefix=args.prefix, end_of_word_suffix=args.end_of_word_suffix,
                   max_token_length=args.max_token_length)
    if args.initial_alphabet:
        options["initial_alphabet"] = list(args.initial_alphabet)
    counting, merging = Bar(args.quiet), Bar(args.quiet)

    def progress(stage, done, target):
        if stage == "count":
            counting.show("counting", done, None, f"{done:,} texts")
        elif stage == "merge":
            counting.close()
            merging.show("merging", done, target, f"{done:,}/{target:,} tokens")

    start = time.monotonic()
    try:
        if byte_level:
            trainer = ByteLevelBpeTrainer(add_prefix_space=args.add_prefix_space, **options)
        else:
            trainer = BpeTrainer(**options)
        post = None if args.post_processor == "none" else args.post_processor
        trained = train_bpe_from_files(args.inputs, trainer, unk_token=unk, post_processor=post,
                                       lowercase=bool(args.lowercase), strip_accents=args.strip_accents,
                                       handle_chinese_chars=args.chinese_chars, num_threads=args.threads,
                                       progress=progress)
    except (TypeError, ValueError, FileNotFoundError) as e:
        raise UserError(str(e)) from None
    finally:
        counting.close()
        merging.close()
    if trained.stats["words"] == 0:
        raise UserError("the corpus has no words to learn from (empty); nothing written")
    try:
        trained.save(args.output)
    except OSError as e:
        raise UserError(f"cannot write {args.output}: {e.strerror or e}") from None
    stats = {**trained.stats, "model": args.model, "seconds": round(time.monotonic() - start, 3),
             "output": args.output}
    if not args.quiet:
        print(f"bertpiece train: {stats['words']:,} words ({stats['unique_words']:,} unique), "
              f"alphabet {stats['alphabet']:,}, {stats['merges']:,} merges, {stats['vocab_size']:,} tokens "
              f"({args.model}), {stats['seconds']:.2f} s -> {args.output}", file=sys.stderr)
    if args.summary_json:
        with open(args.summary_json, "w", encoding="utf-8") as f:
            json.dump(stats, f, indent=2)
            f.write("\n")
    return 0
