"""train: learn a WordPiece vocab.txt (or a BPE or Unigram tokenizer.json) from a corpus (.txt/.jsonl/.parquet, .gz/.zst, or -).

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
writes a tokenizer.json that HF tokenizers loads. --model unigram trains a
Unigram model (EM and pruning, HF's UnigramTrainer options) on Metaspace words
into a tokenizer.json.
"""

from __future__ import annotations

import argparse

from .train_bpe import _UNSET, BPE_SPECIALS, run_bpe
from .train_unigram import refuse_unigram_flags, run_unigram

__all__ = ["add_parser", "run"]




def _limit(value: str):
    from . import int_range

    if value.lower() == "none":
        return None
    return int_range(0)(value)


def add_parser(sub):
    from ..training import DEFAULT_SPECIAL_TOKENS
    from . import DOCS_URL, int_range

    p = sub.add_parser("train", help=__doc__.split(": ", 1)[1].split("\n")[0], description=__doc__,
                       epilog=f"Options and algorithms in detail: {DOCS_URL}train.md, (BPE) {DOCS_URL}train-bpe.md, "
                              f"(Unigram) {DOCS_URL}train-unigram.md",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="CORPUS",
                   help="input files (.txt, .jsonl, .parquet, optionally .gz/.zst) or - for stdin lines")
    p.add_argument("-o", "--output", required=True, help="the vocab.txt (BPE, Unigram: tokenizer.json) to write")
    p.add_argument("--model", default="wordpiece", choices=["wordpiece", "bpe", "byte-bpe", "unigram"],
                   help="wordpiece (default): vocab.txt; bpe: character-level BPE (HF CharBPETokenizer's "
                        "normalization); byte-bpe: byte-level BPE (GPT-2's); unigram: Unigram LM (HF's "
                        "UnigramTrainer, Metaspace words); all but wordpiece write tokenizer.json")
    p.add_argument("--vocab-size", type=int_range(0), help="tokens in the vocabulary (default 30522; BPE: 30000; Unigram: 8000)")
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
    p.add_argument("--min-frequency", type=int_range(0), help="never merge a rarer pair (default 2; BPE: 0)")
    p.add_argument("--limit-alphabet", type=_limit, default=_UNSET, metavar="N",
                   help="keep the N most frequent characters (default 1000; BPE: none; none: all)")
    p.add_argument("--initial-alphabet", default="", metavar="CHARS", help="characters always in the alphabet")
    p.add_argument("--special-tokens", nargs="*", metavar="TOKEN",
                   help="first in the vocabulary, in this order (default: " + " ".join(DEFAULT_SPECIAL_TOKENS) +
                        f"; bpe: {' '.join(BPE_SPECIALS['bpe'])}; byte-bpe: {' '.join(BPE_SPECIALS['byte-bpe'])}; "
                        "unigram: <unk>)")
    p.add_argument("--unk-token", metavar="TOKEN",
                   help="the unknown token, which must be one of the special tokens (default [UNK]; bpe: <unk>; "
                        "byte-bpe: none, every byte is in the alphabet; unigram: <unk>, and one not among the "
                        "special tokens goes first, as in HF)")
    p.add_argument("--unused-tokens", type=int_range(0), default=0, metavar="N",
                   help="reserve [unused0]..[unusedN-1] after the special tokens")
    p.add_argument("--prefix", help="continuing-subword prefix (default ##; BPE: none)")
    p.add_argument("--end-of-word-suffix", metavar="SUFFIX", help="BPE only: end-of-word suffix (e.g. </w>)")
    p.add_argument("--max-token-length", type=int_range(1), metavar="N", help="BPE only: no longer tokens")
    p.add_argument("--add-prefix-space", action="store_true", help="byte-bpe only: a space before each text")
    p.add_argument("--post-processor", choices=["gpt2", "roberta", "none"], default="gpt2",
                   help="byte-bpe only: GPT-2's (default) or RoBERTa's <s> ... </s> post-processor")
    p.add_argument("--shrinking-factor", type=float, metavar="F",
                   help="unigram only: keep this share of the pieces per pruning round (default 0.75)")
    p.add_argument("--max-piece-length", type=int_range(1), metavar="N", help="unigram only: longest piece (default 16)")
    p.add_argument("--n-sub-iterations", type=int_range(1), metavar="N",
                   help="unigram only: EM steps per pruning round (default 2)")
    p.add_argument("--seed-size", type=int_range(1), metavar="N",
                   help="unigram only: seed pieces EM starts from (default 1,000,000)")
    p.add_argument("--max-input-chars-per-word", type=int_range(1), metavar="N",
                   help="do not count longer words (default: none; the reference's limit with --algorithm "
                        "likelihood)")
    p.add_argument("--field", default="text", help="jsonl field holding the text (default: text)")
    p.add_argument("--column", default="text", help="Parquet column holding the text (default: text)")
    p.add_argument("--threads", type=int_range(1), help="counting threads (default: all cores)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars and no summary")
    p.add_argument("--summary-json", metavar="FILE", help="also write the summary as JSON to FILE")
    p.set_defaults(run=run)


CLI_NAMES = {"special_tokens": "--special-tokens", "unk_token": "--unk-token", "initial_alphabet": "--initial-alphabet",
             "prefix": "--prefix"}


WORDPIECE_DEFAULTS = {"vocab_size": 30522, "min_frequency": 2, "limit_alphabet": 1000, "unk_token": "[UNK]",
                      "prefix": "##"}


def run(args) -> int:
    from . import UserError, threads_note
    from ..input_formats import Source
    from ..terminal.progress import LiveLine
    from .train_common import check_output, finish, show_merging
    from ..training import DEFAULT_SPECIAL_TOKENS, Batches, check_token_options, train_wordpiece

    if args.model == "unigram":
        return run_unigram(args)
    refuse_unigram_flags(args)
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

    check_output(args)
    try:  # before reading the corpus, naming the flags
        check_token_options(args.special_tokens, args.unk_token, list(args.initial_alphabet), args.prefix,
                            names=CLI_NAMES)
    except (TypeError, ValueError) as e:
        raise UserError(str(e)) from None
    if args.inputs.count("-") > 1:
        raise UserError("stdin (-) can be read only once")
    sources = [Source(path, field=args.field, column=args.column, want_extra=False) for path in args.inputs]
    totals = [s.total_bytes for s in sources]
    total = None if None in totals else sum(totals)
    line = LiveLine("bertpiece train", enabled=not args.quiet)
    state = {"done_bytes": 0, "texts": 0}

    def batches():
        for source in sources:
            rows = 0
            for batch in source.batches(1_000):
                yield batch.texts, batch.invalid_utf8, (source.path, rows)
                rows += len(batch.texts)
                state["texts"] += len(batch.texts)
                read = state["done_bytes"] + source.bytes_read()
                line.show("counting", min(read / total, 1.0) if total else None,
                          [f"{state['texts']:,} texts", f"{read / 1e6:,.1f} MB", f"{line.elapsed():.0f} s"])
            state["done_bytes"] += source.bytes_read()

    def progress(stage, done, target):
        if stage == "merge":
            show_merging(line, done, target)

    try:
        with threads_note(args.threads):
            vocab = train_wordpiece(
                Batches(batches()), args.vocab_size, algorithm=args.algorithm, reference=args.reference,
                do_lower_case=args.lowercase, strip_accents=args.strip_accents,
                tokenize_chinese_chars=args.chinese_chars, min_frequency=args.min_frequency,
                limit_alphabet=args.limit_alphabet, initial_alphabet=list(args.initial_alphabet),
                special_tokens=args.special_tokens, unk_token=args.unk_token, unused_tokens=args.unused_tokens,
                continuing_subword_prefix=args.prefix, max_input_chars_per_word=args.max_input_chars_per_word,
                num_threads=args.threads, progress=progress)
        stats = vocab.stats
        if stats["words"] - stats["long_words_skipped"] == 0:
            raise UserError("the corpus has no words to learn from (empty or only whitespace); nothing written")
        try:
            vocab.save(args.output)
        except OSError as e:
            raise UserError(f"cannot write {args.output}: {e.strerror or e}") from None
    except ValueError as e:
        line.close()
        raise UserError(str(e)) from None
    except BaseException:
        line.close()
        raise
    parts = [f"{stats['words']:,} words", f"{stats['unique_words']:,} unique",
             f"{stats['long_words_skipped']:,} too long",
             f"{stats['invalid_utf8_lines']:,} invalid-UTF-8 lines", f"alphabet {stats['alphabet']:,}",
             f"{stats['merges']:,} merges", f"{stats['vocab_size']:,} tokens ({args.algorithm})"]
    return finish(line, args, stats, parts)

