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
import itertools
import json
import os
import queue
import sys
import threading
import time

import numpy as np

from . import encode_pipeline
from .outputs import EncodedRows, read_bin, read_bin_index

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


# ----------------------------------------------------------------- encoding
def encode_rows(tok, texts, *, special=True, max_length=None, stride=None, offsets=False, threads=None, row0=0):
    """One batch of texts -> (EncodedRows, Counters). Ids equal
    `tok(texts, add_special_tokens=special, truncation=..., max_length=...)`;
    with `stride`, the `return_overflowing_tokens=True` windows."""
    from ..terminal.progress import Counters

    if isinstance(tok, encode_pipeline.Tokenizer):  # --tokenizer
        return encode_pipeline.encode_rows(tok, texts, special=special, max_length=max_length, stride=stride,
                                           offsets=offsets, threads=threads, row0=row0)
    c = Counters(rows_in=len(texts))
    if stride is not None:  # overflow windows: the general (slower) path
        enc = tok(texts, add_special_tokens=special, truncation=True, max_length=max_length, stride=stride,
                  return_overflowing_tokens=True, return_offsets_mapping=offsets,
                  return_token_type_ids=False, return_attention_mask=False)
        ids_rows = enc["input_ids"]
        mapping = np.asarray(enc["overflow_to_sample_mapping"], dtype=np.int64)
        splits = np.zeros(len(ids_rows) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, ids_rows), np.int64, len(ids_rows)), out=splits[1:])
        ids = np.fromiter(itertools.chain.from_iterable(ids_rows), np.int32, int(splits[-1]))
        offs = None
        if offsets:
            offs = np.asarray(list(itertools.chain.from_iterable(enc["offset_mapping"])), np.int32).reshape(-1, 2)
        c.truncated_rows = int(np.count_nonzero(np.bincount(mapping, minlength=len(texts)) > 1))
        rows = EncodedRows(ids, splits, offs, source_row=mapping + row0, batch_row=mapping)
    else:
        eb = tok.encode_batch(texts, add_special_tokens=special, return_offsets=offsets, num_threads=threads)
        rows = EncodedRows(eb.ids, eb.row_splits, eb.offsets)
        if max_length is not None:
            rows, c.truncated_rows = _truncate(rows, max_length, tok.sep_token_id if special else None)
    c.rows_out = len(rows)
    c.tokens = len(rows.ids)
    c.content_tokens = c.tokens - (2 * c.rows_out if special else 0)
    c.unk_tokens = int(np.count_nonzero(rows.ids == tok.unk_token_id)) if tok.unk_token_id is not None else 0
    return rows, c


def _truncate(rows, max_length, sep_id):
    """Right truncation to `max_length` tokens, vectorized: a truncated row keeps
    its first max_length - 1 tokens and ends with [SEP] (when special tokens
    are added), like transformers' `truncation=True`. Returns (rows, count)."""
    lengths = np.diff(rows.row_splits)
    over = lengths > max_length
    n_over = int(np.count_nonzero(over))
    if not n_over:
        return rows, 0
    new_len = np.minimum(lengths, max_length)
    splits = np.zeros_like(rows.row_splits)
    np.cumsum(new_len, out=splits[1:])
    take = np.arange(splits[-1], dtype=np.int64) + np.repeat(rows.row_splits[:-1] - splits[:-1], new_len)
    ids = rows.ids[take]
    offs = rows.offsets[take] if rows.offsets is not None else None
    if sep_id is not None:
        last = splits[1:][over] - 1
        ids[last] = sep_id
        if offs is not None:
            offs[last] = 0
    return EncodedRows(ids, splits, offs), n_over


def _prefetch(iterator, depth=2):
    """Runs `iterator` (reading and decoding input) in a thread, `depth` batches
    ahead, so reading overlaps encoding and writing. Errors re-raise here."""
    q = queue.Queue(depth)
    stop = threading.Event()

    def put(item):
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work():
        try:
            for x in iterator:
                if not put(("item", x)):
                    return
            put(("end", None))
        except BaseException as e:  # noqa: BLE001  (handed to the consumer)
            put(("error", e))

    threading.Thread(target=work, daemon=True, name="bertpiece-reader").start()
    try:
        while True:
            kind, x = q.get()
            if kind == "item":
                yield x
            elif kind == "end":
                return
            else:
                raise x
    finally:
        stop.set()


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


def _make_writer(args, fmt, tok, work, overflow, writer_state):
    from .outputs import FlatWriter, ParquetPartsWriter

    if fmt == "parquet":
        columns = ["input_ids"] + [name for flag, name in ((args.attention_mask, "attention_mask"),
                                                            (args.token_type_ids, "token_type_ids"),
                                                            (args.offsets, "offset_mapping")) if flag]
        return ParquetPartsWriter(work.path, args.output, columns=columns, state=writer_state)
    itemsize = 2 if max(tok.get_vocab().values()) < 1 << 16 else 4
    return FlatWriter(work.path, args.output, fmt, with_source_row=overflow, bin_itemsize=itemsize,
                      state=writer_state)


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


def _finalize(args, fmt, source, writer, overflow):
    """Moves the finished output into place (Parquet: assembled from the parts first)."""
    if fmt == "parquet":
        empty = EncodedRows(np.zeros(0, np.int32), np.zeros(1, np.int64),
                            np.zeros((0, 2), np.int32) if args.offsets else None,
                            np.zeros(0, np.int64) if overflow else None, np.zeros(0, np.int64) if overflow else None)
        schema = source.schema
        extra = schema.empty_table() if schema is not None and len(schema) else None
        writer.finalize(empty_schema=writer.to_table(empty, extra).schema)
    else:
        writer.finalize()
    _remove_stale_siblings(args, fmt, overflow)


def _checkpoint(work, writer, counters, source, fingerprint):
    from dataclasses import asdict

    schema = source.schema  # jsonl passthrough types, fixed by the first batch: needed to resume mid-file
    encoded = base64.b64encode(schema.serialize().to_pybytes()).decode() if schema is not None else None
    work.save_state({"fingerprint": fingerprint, "counters": asdict(counters), "writer": writer.checkpoint(),
                     "schema": encoded, "input_bytes": source.bytes_read()})


def _remove_stale_siblings(args, fmt, overflow):
    """With --overwrite, a .source_row.npy left by an earlier overflow run would
    no longer match the new output."""
    from .outputs import sibling

    if fmt == "npy" and not overflow and args.overwrite:
        stale = sibling(args.output, "source_row")
        if os.path.lexists(stale):
            os.remove(stale)
