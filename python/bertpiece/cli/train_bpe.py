"""`bertpiece train --model bpe|byte-bpe`: BPE and byte-level BPE vocabularies
(bertpiece.trainers, HF BpeTrainer's rules) written as tokenizer.json, with the
same inputs, live line and summary as the WordPiece path (train.py)."""

from __future__ import annotations


_UNSET = object()  # --limit-alphabet not given (None is "none": no limit); the WordPiece path's too
BPE_SPECIALS = {"bpe": ["<unk>"], "byte-bpe": ["<|endoftext|>"]}


def run_bpe(args) -> int:
    """--model bpe / byte-bpe: bertpiece.trainers, writing tokenizer.json."""
    from . import UserError
    from ..terminal.progress import LiveLine
    from .train_common import check_output, finish, show_merging, train_and_save
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
    check_output(args)
    options = dict(vocab_size=30000 if args.vocab_size is None else args.vocab_size,
                   min_frequency=args.min_frequency or 0, show_progress=False, special_tokens=specials,
                   limit_alphabet=None if args.limit_alphabet is _UNSET else args.limit_alphabet,
                   continuing_subword_prefix=args.prefix, end_of_word_suffix=args.end_of_word_suffix,
                   max_token_length=args.max_token_length)
    if args.initial_alphabet:
        options["initial_alphabet"] = list(args.initial_alphabet)
    line = LiveLine("bertpiece train", enabled=not args.quiet)

    def progress(stage, done, target):
        if stage == "count":
            line.show("counting", None, [f"{done:,} texts", f"{line.elapsed():.0f} s"])
        elif stage == "merge":
            show_merging(line, done, target)

    def train():
        trainer = ByteLevelBpeTrainer(add_prefix_space=args.add_prefix_space, **options) if byte_level \
            else BpeTrainer(**options)
        post = None if args.post_processor == "none" else args.post_processor
        return train_bpe_from_files(args.inputs, trainer, unk_token=unk, post_processor=post,
                                    lowercase=bool(args.lowercase), strip_accents=args.strip_accents,
                                    handle_chinese_chars=args.chinese_chars, num_threads=args.threads,
                                    progress=progress)

    trained = train_and_save(line, args, train)
    stats = {**trained.stats, "model": args.model}
    parts = [f"{stats['words']:,} words", f"{stats['unique_words']:,} unique", f"alphabet {stats['alphabet']:,}",
             f"{stats['merges']:,} merges", f"{stats['vocab_size']:,} tokens ({args.model})"]
    return finish(line, args, stats, parts)
