"""`python -m bertpiece [TEXT ...]`: tokens and ids of each text (or of each stdin line)."""

import argparse
import sys

from . import DEFAULT_MODEL, PRETRAINED, FullTokenizer


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bertpiece", description=__doc__)
    ap.add_argument("text", nargs="*", help="texts to tokenize (default: one per stdin line)")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--model", default=DEFAULT_MODEL, choices=list(PRETRAINED), help="bundled vocabulary")
    src.add_argument("--vocab", help="a vocab.txt file instead of a bundled vocabulary")
    ap.add_argument("--cased", action="store_true", help="do not lowercase (with --vocab)")
    ap.add_argument("--reference", default="google", choices=["google", "transformers"])
    args = ap.parse_args(argv)
    try:
        if args.vocab:
            tok = FullTokenizer(args.vocab, not args.cased, reference=args.reference)
        else:
            tok = FullTokenizer.from_pretrained(args.model, reference=args.reference)
    except (OSError, ValueError) as e:
        ap.exit(2, f"python -m bertpiece: error: {e}\n")
    texts = args.text or (line.rstrip("\n") for line in sys.stdin)
    for text in texts:
        tokens = tok.tokenize(text)
        print(" ".join(tokens))
        print(" ".join(map(str, tok.convert_tokens_to_ids(tokens))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
