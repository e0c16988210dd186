"""encode: stream a corpus (.txt/.jsonl/.parquet, .gz/.zst, or -) into token ids (.parquet, .npy or .bin).

Memory stays bounded whatever the corpus size: the input is read, encoded
(`BertTokenizer.encode_batch`, all cores, no Python object per token) and
written batch by batch. Output goes to `OUTPUT.partial/` and is renamed into
place when complete; `--resume` continues an interrupted run and produces the
same bytes as an uninterrupted one.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import errno
import json
import os
import sys
import time

from . import encode_pipeline
from .encode_batches import _prefetch, encode_rows
from .encode_output import _checkpoint, _finalize, _make_writer
from .outputs import read_bin, read_bin_index

__all__ = ["add_parser", "run", "encode_rows", "read_bin", "read_bin_index"]

# The user guide (docs/cli-encode.md) is not installed with the wheel: --help
# carries what a pip user needs and links the rest.
EPILOG = """\
outputs (NAME = OUTPUT without its extension):
  .parquet  input_ids list<int32>, plus the input's other columns (source_row with --stride)
  .npy      int32 ids of all rows back to back, + NAME.row_splits.npy (int64, row i = ids[s[i]:s[i+1]])
  .bin      uint16 ids (int32 when a vocabulary id is 65536 or more), + NAME.idx (header and row offsets);
            read with bertpiece.cli.encode.read_bin

Ids equal bertpiece.BertTokenizer.from_pretrained(MODEL)(texts)["input_ids"].
Parquet output and .zst input need: pip install pyarrow zstandard
Resuming, memory, formats in detail: {docs}cli-encode.md
"""

# The CLI's one default: what transformers' (and bertpiece's) BertTokenizer runs.
DEFAULT_REFERENCE = "tokenizers"
OUTPUT_FORMATS = {".parquet": "parquet", ".npy": "npy", ".bin": "bin"}


def add_parser(sub):
    from . import add_vocab_options

    from . import DOCS_URL, int_range

    p = sub.add_parser("encode", help=__doc__.split(": ", 1)[1].split("\n")[0], description=__doc__,
                       epilog=EPILOG.format(docs=DOCS_URL), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="input file (.txt, .jsonl, .parquet, optionally .gz/.zst) or - for stdin lines")
    p.add_argument("-o", "--output", required=True, help="output file: .parquet, .npy or .bin")
    add_vocab_options(p, "lowercase (default: the model's setting; True with --vocab)")
    p.add_argument("--tokenizer", metavar="JSON|FOLDER", help="any tokenizer.json (or a folder holding one) "
                   "instead of a BERT vocabulary: ids equal bertpiece.Tokenizer.from_file(JSON).encode_batch(texts)")
    p.add_argument("--reference", default=None, choices=["google", "transformers", "tokenizers"],
                   help="semantics to reproduce (default: tokenizers = BertTokenizer.from_pretrained)")
    p.set_defaults(model=None)  # "not given" (refused with --tokenizer); the default is filled in later
    p.add_argument("--strip-accents", action=argparse.BooleanOptionalAction, default=None,
                   help="strip accents (default: when lowercasing)")
    p.add_argument("--no-special-tokens", action="store_true", help="do not add [CLS] and [SEP]")
    p.add_argument("--field", default="text", help="jsonl field holding the text (default: text)")
    p.add_argument("--column", default="text", help="Parquet column holding the text (default: text)")
    p.add_argument("--max-length", type=int_range(1), help="truncate rows to this many tokens (implies --truncation)")
    p.add_argument("--truncation", action="store_true", help="truncate to --max-length")
    p.add_argument("--stride", type=int_range(0), help="keep the overflow as extra rows (windows overlapping by STRIDE "
                                              "tokens, with a source_row); needs --max-length")
    p.add_argument("--attention-mask", action="store_true", help="Parquet: add an attention_mask column")
    p.add_argument("--token-type-ids", action="store_true", help="Parquet: add a token_type_ids column")
    p.add_argument("--offsets", action="store_true", help="Parquet: add offset_mapping (code point offsets)")
    p.add_argument("--threads", type=int_range(1), help="encoding threads (default: all cores)")
    p.add_argument("--batch-size", type=int_range(1, sys.maxsize), default=10_000, help="input rows per encode call (default 10000)")
    p.add_argument("--checkpoint-every", type=int_range(1), default=5, metavar="BATCHES",
                   help="save a resume point every this many batches (default 5)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run of the same command")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output (or partial run)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary (errors still shown)")
    p.add_argument("--summary-json", metavar="FILE", help="also write the summary as JSON to FILE")
    p.set_defaults(run=run)


# ------------------------------------------------------------------ options
def _check_options(args):
    from . import UserError

    encode_pipeline.resolve_source_options(args, DEFAULT_REFERENCE)
    if (args.truncation or args.stride is not None) and args.max_length is None:
        raise UserError("--truncation and --stride need --max-length")
    if args.max_length is not None and args.tokenizer is None:  # a tokenizer.json's specials: encode_pipeline.load
        least = 0 if args.no_special_tokens else 2
        if args.max_length < max(least, 1):
            raise UserError(f"--max-length must be at least {max(least, 1)} (room for [CLS] and [SEP]), "
                            f"got {args.max_length}")
        if args.stride is not None and args.stride >= args.max_length - least:
            raise UserError(f"--stride must be smaller than --max-length minus the special tokens "
                            f"({args.max_length - least}), got {args.stride}")
    ext = os.path.splitext(args.output)[1].lower()
    if ext not in OUTPUT_FORMATS:
        raise UserError(f"{args.output}: unknown output type; expected .parquet, .npy or .bin")
    fmt = OUTPUT_FORMATS[ext]
    if fmt != "parquet" and (args.attention_mask or args.token_type_ids or args.offsets):
        raise UserError("--attention-mask, --token-type-ids and --offsets need a .parquet output")
    if args.resume and args.input == "-":
        raise UserError("--resume needs an input file (stdin cannot be read again)")
    return fmt


def _tokenizer(args):
    from ..bert_tokenizer import PlainBertTokenizer as BertTokenizer
    from . import UserError

    if args.tokenizer is not None:
        return encode_pipeline.load(args)
    kwargs = {}
    if args.lowercase is not None:
        kwargs["do_lower_case"] = args.lowercase
    if args.strip_accents is not None:
        kwargs["strip_accents"] = args.strip_accents
    try:
        if args.vocab:
            return BertTokenizer(args.vocab, reference=args.reference, **kwargs)
        return BertTokenizer.from_pretrained(args.model, reference=args.reference, **kwargs)
    except (OSError, ValueError) as e:
        raise UserError(f"cannot load the vocabulary: {e}") from None


# --------------------------------------------------------------------- run
def run(args) -> int:
    from . import UserError, refuse_input_as_output, threads_note, write_summary_json
    from ..input_formats import CLI_EXTRA, Source, need_pyarrow
    from .outputs import output_files
    from ..terminal.progress import summary_width
    from .workdir import WorkDir, differences, run_fingerprint

    fmt = _check_options(args)
    if fmt == "parquet":
        need_pyarrow("writing Parquet")
    output = args.output
    overflow = args.stride is not None
    finals = output_files(output, fmt, overflow)
    refuse_input_as_output([args.input], finals + [args.summary_json])
    existing = [p for p in finals if os.path.lexists(p)]
    if existing and not args.overwrite:
        raise UserError(f"{existing[-1]} already exists (use --overwrite to replace it)")
    out_dir = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(out_dir):
        raise UserError(f"cannot write {output}: directory {out_dir} does not exist")
    work = WorkDir(output)
    source = Source(args.input, field=args.field, column=args.column, workdir_for_temp=work.path,
                    want_extra=fmt == "parquet")
    tok = _tokenizer(args)
    fingerprint = run_fingerprint(args, fmt) if args.input != "-" else None

    state = None
    if work.exists():
        if args.resume:
            state = work.load_state()
            if state is not None and state.get("fingerprint") != json.loads(json.dumps(fingerprint)):
                raise UserError(f"cannot resume {work.path}: {differences(state.get('fingerprint'), fingerprint)} "
                                "(rerun the interrupted command, or use --overwrite to start over)")
            if state is None:
                work.remove()  # died before its first checkpoint: nothing to keep
        elif args.overwrite:
            work.remove()
        else:
            raise UserError(f"{work.path} holds an interrupted run: use --resume to continue it "
                            "or --overwrite to start over")
    try:
        if state is None:
            work.create()
    except OSError as e:
        raise UserError(f"cannot write to {out_dir}: {e.strerror or e}") from None

    try:
        with threads_note(args.threads):
            summary = _encode_all(args, fmt, source, tok, work, state, fingerprint, overflow)
    except KeyboardInterrupt:
        if fingerprint is not None:  # one message, printed by cli.main
            raise KeyboardInterrupt("interrupted; rerun the same command with --resume to continue") from None
        work.remove()
        raise
    except UserError:
        work.remove()
        raise
    except OSError as e:
        work.remove()
        where = e.filename or output
        reason = "disk full" if e.errno == errno.ENOSPC else (e.strerror or str(e))
        raise UserError(f"cannot write {output}: {reason} ({where})") from None
    except ImportError as e:
        work.remove()
        raise UserError(f"missing dependency ({e}): {CLI_EXTRA}") from None
    finally:
        source.close()
    if not args.quiet:
        print(summary.text(summary_width(sys.stderr)), file=sys.stderr)
    if args.summary_json:
        write_summary_json(args.summary_json, summary.as_dict())
    return 0


def _encode_all(args, fmt, source, tok, work, state, fingerprint, overflow):
    from . import UserError
    from ..terminal.progress import Counters, Progress, Summary

    start = time.monotonic()
    counters = Counters(**state["counters"]) if state else Counters()
    resumed_from = counters.rows_in
    resumed_bytes = state.get("input_bytes", 0) if state else 0  # approximate (read-ahead): for MB/s only
    if state and state.get("schema"):
        import pyarrow as pa

        source.set_schema(pa.ipc.read_schema(pa.py_buffer(base64.b64decode(state["schema"]))))
    writer = _make_writer(args, fmt, tok, work, overflow, state["writer"] if state else None)
    progress = Progress(source.total_bytes, enabled=not args.quiet, start=start, base_bytes=resumed_bytes)
    options = dict(special=not args.no_special_tokens, max_length=args.max_length, stride=args.stride,
                   offsets=args.offsets, threads=args.threads)
    since_checkpoint = 0
    try:
        batches = contextlib.closing(_prefetch(source.batches(args.batch_size, skip_rows=counters.rows_in)))
        with batches as batches:
            for batch in batches:
                try:
                    rows, c = encode_rows(tok, batch.texts, row0=counters.rows_in, **options)
                except ValueError as e:  # the tokenizer refusing an option combination
                    raise UserError(f"cannot encode rows {counters.rows_in + 1}-{counters.rows_in + len(batch.texts)}: "
                                    f"{e}") from None
                c.invalid_utf8_lines = batch.invalid_utf8
                writer.write(rows, batch.extra)
                counters.add(c)
                since_checkpoint += 1
                if since_checkpoint == args.checkpoint_every and fingerprint is not None:
                    _checkpoint(work, writer, counters, source, fingerprint)
                    since_checkpoint = 0
                progress.update(counters.rows_in, source.bytes_read())
        progress.update(counters.rows_in, source.bytes_read(), force=True)
        with progress.phase(f"{'assembling' if fmt == 'parquet' else 'writing'} {os.path.basename(args.output)}"):
            _finalize(args, fmt, source, writer, overflow)
        seconds = time.monotonic() - start  # one figure for the last frame and the summary
    except BaseException:
        progress.close()
        raise
    finally:
        writer.close()
    progress.close(seconds)
    work.remove()
    from .outputs import output_files

    return Summary(counters, seconds, max(source.bytes_read() - resumed_bytes, 0), resumed_from,
                   output_files(args.output, fmt, overflow), model=None if args.vocab else args.model)


