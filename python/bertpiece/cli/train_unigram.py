"""`bertpiece train --model unigram`: a Unigram tokenizer.json (bertpiece.trainers.
UnigramTrainer, HF's options; Metaspace words) with the same inputs, live line
and summary as the other models."""

from __future__ import annotations

UNIGRAM_SPECIALS = ["<unk>"]
UNIGRAM_ONLY = ("shrinking_factor", "max_piece_length", "n_sub_iterations", "seed_size")


def refuse_unigram_flags(args) -> None:
    """A Unigram option given with another --model is a mistake, not ignored."""
    from . import UserError

    for name in UNIGRAM_ONLY:
        if getattr(args, name, None) is not None:
            raise UserError(f"--{name.replace('_', '-')} is for --model unigram")


def run_unigram(args) -> int:
    from . import UserError
    from ..terminal.progress import LiveLine
    from .train_common import check_output, finish, train_and_save
    from ..trainers import UnigramTrainer, train_unigram_from_files

    other = {"algorithm": args.algorithm, "reference": args.reference, "unused_tokens": args.unused_tokens,
             "max_input_chars_per_word": args.max_input_chars_per_word, "min_frequency": args.min_frequency,
             "prefix": args.prefix, "end_of_word_suffix": args.end_of_word_suffix,
             "max_token_length": args.max_token_length, "lowercase": args.lowercase,
             "strip_accents": args.strip_accents}
    for name, value in other.items():
        if value not in (None, 0):
            raise UserError(f"--{name.replace('_', '-')} is not a --model unigram option (Unigram counts words as "
                            f"HF's Metaspace() splits them, no normalization)")
    if args.add_prefix_space or args.post_processor != "gpt2" or args.chinese_chars is not True:
        raise UserError("--add-prefix-space, --post-processor and --no-chinese-chars are not --model unigram options")
    if args.shrinking_factor is not None and not 0.0 < args.shrinking_factor < 1.0:
        raise UserError(f"--shrinking-factor must be between 0 and 1 (exclusive), got {args.shrinking_factor}")
    specials = UNIGRAM_SPECIALS if args.special_tokens is None else args.special_tokens
    unk = args.unk_token
    if unk is None and "<unk>" in specials:
        unk = "<unk>"
    check_output(args)
    options = {name: getattr(args, name) for name in UNIGRAM_ONLY if getattr(args, name) is not None}
    line = LiveLine("bertpiece train", enabled=not args.quiet)

    def progress(stage, done, target):
        if stage == "count":
            line.show("counting", None, [f"{done:,} texts", f"{line.elapsed():.0f} s"])
        elif stage == "em":
            line.show("EM", None, [f"{done:,} pieces -> {target:,}", f"{line.elapsed():.0f} s"])

    def train():
        trainer = UnigramTrainer(vocab_size=8000 if args.vocab_size is None else args.vocab_size,
                                 show_progress=False, special_tokens=specials, unk_token=unk,
                                 initial_alphabet=list(args.initial_alphabet), **options)
        return train_unigram_from_files(args.inputs, trainer, num_threads=args.threads, progress=progress)

    trained = train_and_save(line, args, train)
    stats = {**trained.stats, "model": "unigram"}
    parts = [f"{stats['words']:,} words", f"{stats['unique_words']:,} unique", f"{stats['rounds']:,} EM rounds",
             f"{stats['vocab_size']:,} tokens (unigram)"]
    return finish(line, args, stats, parts)
