"""Parity sweep at scale: tokenizer file x text x call -> rows compared, rows that differ, the first difference.

Every call of bertpiece's fast paths on whole corpora and synthetic texts built to overflow every word cache,
against the reference on the same lines (docs/parity-sweep.md lists what was swept and what it found):

- tokenizer.json files no one here trained (GPT-2's and Whisper's ranks, CLIP, sentencepiece's en/ja test
  models as XLM-R/T5 convert them, BERT uncased and multilingual-cased as transformers converts them):
  bertpiece.Tokenizer's `encode_batch_arrays` (1 and 2 threads, with and without offsets), `encode_batch`
  (ids of every row, every column of every `--every`-th row, read lazily) and `encode` (every column, every
  `--every`-th row) against tokenizers 0.23.3's `encode_batch`;
- BERT vocabularies: bertpiece.BertTokenizer's bulk `encode_batch` (1 and 2 threads, offsets) and `tok(texts)`
  against the same tokenizers file transformers 5.24's BertTokenizer runs;
- sentencepiece .model files: bertpiece.SentencePieceProcessor's `encode` (ids, pieces) against sentencepiece.

    nice -n 10 python benches/parity_sweep.py [--files a,b] [--texts en-large,ud,synthetic,edge]
        [--synthetic-words 1000000] [--every 50] [--corpus DIR] [--list]

Prints one line per file x text x call and exits 1 when any row differs. Run with the project's venv."""

import argparse
import glob
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import parity_sweep_texts  # noqa: E402
from parity_sweep_texts import TEXT_NAMES, texts  # noqa: E402

CACHE = os.path.join(ROOT, ".cache")
VOCAB = "/work/shared/data/vocab"
COLUMNS = ("ids", "tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids",
           "sequence_ids")
CHUNK = 4096


def pipeline_files():
    """{label: tokenizer.json path} of the files that exist (benches/untrained_files.py and
    benches/unigram_third_party.py make them)."""
    out = {"gpt2-from-whisper": os.path.join(CACHE, "bench_pipeline", "gpt2-from-whisper-ranks.json")}
    for path in sorted(glob.glob(os.path.join(CACHE, "untrained_files", "*.json"))
                       + glob.glob(os.path.join(CACHE, "bench_unigram_third_party", "*.json"))):
        out[os.path.basename(path)[:-5]] = path
    return {k: v for k, v in out.items() if os.path.exists(v)}


def bert_tokenizers(vocab, lower):
    """transformers 5.24's BertTokenizer of `vocab` (loaded from a folder: the constructor's vocab_file is not
    read in 5.24) and the tokenizer.json it runs."""
    import json
    import shutil
    import tempfile

    import transformers

    transformers.logging.set_verbosity_error()
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(VOCAB, vocab), os.path.join(tmp, "vocab.txt"))
        with open(os.path.join(tmp, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump({"tokenizer_class": "BertTokenizer", "do_lower_case": lower}, f)
        tok = transformers.BertTokenizer.from_pretrained(tmp)
    return tok, tok.backend_tokenizer.to_str()


def bert_json(vocab, lower):
    return bert_tokenizers(vocab, lower)[1]


BERT = {"bert-uncased": ("bert-base-uncased.txt", True), "bert-mc": ("bert-base-multilingual-cased.txt", False)}
SPM = {"spm-en": "test-models/sentencepiece-0.2.1/test_model.model",
       "spm-ja": "test-models/sentencepiece-0.2.1/test_ja_model.model",
       "spm-unigram32k": "bench_spm26/unigram32k.model", "spm-bpe32k": "bench_spm26/bpe32k.model"}


class Reference:
    """tokenizers' rows of `lines`: ids and offsets flat, row lengths, and every column of the sampled rows."""

    def __init__(self, hf, lines, every):
        ids, offsets, lens, self.sampled = [], [], [], {}
        for at in range(0, len(lines), CHUNK):
            encs = hf.encode_batch(lines[at:at + CHUNK])
            for k, e in enumerate(encs):
                row_ids = e.ids
                ids.append(np.asarray(row_ids, np.int64))
                offsets.append(np.asarray(e.offsets, np.int64).reshape(-1, 2))
                lens.append(len(row_ids))
                if (at + k) % every == 0 or len(lines) <= 1000:
                    self.sampled[at + k] = columns(e)
        self.ids = np.concatenate(ids) if ids else np.zeros(0, np.int64)
        self.offsets = np.concatenate(offsets) if offsets else np.zeros((0, 2), np.int64)
        self.splits = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)


def columns(enc):
    out = {c: getattr(enc, c) for c in COLUMNS}
    out["overflowing"] = [columns(o) for o in enc.overflowing]
    return out


def first_row_difference(lines, splits, ids, ref_splits, ref_ids, offsets=None, ref_offsets=None):
    """(number of differing rows, a description of the first) of two flat row layouts."""
    if len(splits) != len(ref_splits):
        return len(lines), f"{len(splits) - 1} rows, want {len(ref_splits) - 1}"
    bad, first = 0, None
    for i in range(len(lines)):
        a, b, ra, rb = splits[i], splits[i + 1], ref_splits[i], ref_splits[i + 1]
        got, want = ids[a:b], ref_ids[ra:rb]
        same = len(got) == len(want) and np.array_equal(got, want)
        if same and offsets is not None:
            same = np.array_equal(offsets[a:b], ref_offsets[ra:rb])
            what = "offsets"
        else:
            what = "ids"
        if not same:
            bad += 1
            if first is None:
                first = describe(i, lines[i], what, got if what == "ids" else offsets[a:b],
                                 want if what == "ids" else ref_offsets[ra:rb])
    return bad, first


def describe(i, line, what, got, want):
    def plain(x):
        return x if isinstance(x, str) else tuple(int(v) for v in x) if np.ndim(x) else int(x)

    got, want = [plain(x) for x in got], [plain(x) for x in want]
    at = next((k for k, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
    return (f"row {i} ({len(line)} chars: {line[:60]!r}): {what} differ at {at}: ours {got[at:at + 6]} "
            f"(len {len(got)}), want {want[at:at + 6]} (len {len(want)})")


def flat(batch):
    return (np.asarray(batch.ids, np.int64), np.asarray(batch.row_splits, np.int64),
            None if batch.offsets is None else np.asarray(batch.offsets, np.int64))


def bulk_calls(encode, name, ref, lines):
    """(call, rows compared, differing rows, first difference) of a bulk call at 1 and 2 threads, with and
    without offsets."""
    for threads in (1, 2):
        for offsets in (False, True):
            ids, splits, offs = flat(encode(lines, return_offsets=offsets, num_threads=threads))
            bad, first = first_row_difference(lines, splits, ids, ref.splits, ref.ids,
                                              offs, ref.offsets if offsets else None)
            yield f"{name} t{threads}{' offsets' if offsets else ''}", len(lines), bad, first


def pipeline_calls(ours, ref, lines, every):
    """(call, rows compared, differing rows, first difference) of each call of bertpiece.Tokenizer."""
    yield from bulk_calls(ours.encode_batch_arrays, "bulk", ref, lines)
    encs = ours.encode_batch(lines)
    lens = [0]
    for e in encs:
        lens.append(lens[-1] + len(e.ids))
    ids = np.fromiter((i for e in encs for i in e.ids), np.int64, lens[-1])
    bad, first = first_row_difference(lines, np.asarray(lens, np.int64), ids, ref.splits, ref.ids)
    yield "encode_batch ids", len(lines), bad, first
    yield ("encode_batch columns",) + compare_sampled(lambda i: encs[i], ref, lines)
    encs = None  # (freed before the per-text calls)
    yield ("encode columns",) + compare_sampled(lambda i: ours.encode(lines[i]), ref, lines)


def compare_sampled(make, ref, lines):
    bad, first = 0, None
    for i, want in ref.sampled.items():
        got = columns(make(i))
        if got != want:
            bad += 1
            if first is None:
                col = next(c for c in want if got[c] != want[c])
                first = describe(i, lines[i], col, got[col], want[col]) if col != "overflowing" else f"row {i}: overflowing"
    return len(ref.sampled), bad, first


def bert_calls(ours, ref, lines, transformers_tok):
    """bertpiece.BertTokenizer's bulk call, __call__ and the padded serving call against the tokenizers file
    transformers runs (and transformers' own padded call)."""
    yield from bulk_calls(ours.encode_batch, "BertTokenizer.encode_batch", ref, lines)
    rows, lens = [], [0]
    for at in range(0, len(lines), CHUNK):
        for row in ours(lines[at:at + CHUNK])["input_ids"]:
            rows.append(np.asarray(row, np.int64))
            lens.append(lens[-1] + len(row))
    bad, first = first_row_difference(lines, np.asarray(lens, np.int64), np.concatenate(rows), ref.splits, ref.ids)
    yield "BertTokenizer(texts)", len(lines), bad, first
    for n, max_length in ((32, 128), (7, 512)):
        bad, first = 0, None
        for at in range(0, len(lines), n):
            chunk = lines[at:at + n]
            got = ours(chunk, padding=True, truncation=True, max_length=max_length, return_tensors="np")
            want = transformers_tok(chunk, padding=True, truncation=True, max_length=max_length, return_tensors="np")
            for key in ("input_ids", "token_type_ids", "attention_mask"):
                if not np.array_equal(got[key], want[key]):
                    bad += 1
                    first = first or f"rows {at}..{at + n} ({chunk[0][:40]!r}...): {key} differ"
                    break
        yield f"BertTokenizer(batches of {n}, padding, max_length={max_length}, np)", len(lines), bad, first


def spm_calls(path, lines):
    import sentencepiece

    import bertpiece

    theirs = sentencepiece.SentencePieceProcessor(model_file=path)
    ours = bertpiece.SentencePieceProcessor(model_file=path)
    for out_type, name in ((int, "ids"), (str, "pieces")):
        bad, first = 0, None
        for at in range(0, len(lines), CHUNK):
            chunk = lines[at:at + CHUNK]
            got, want = ours.encode(chunk, out_type=out_type), theirs.encode(chunk, out_type=out_type)
            for k, (g, w) in enumerate(zip(got, want)):
                if g != w:
                    bad += 1
                    first = first or describe(at + k, chunk[k], name, g, w)
        yield f"SentencePieceProcessor.encode {name}", len(lines), bad, first


def run(file_label, text_label, lines, every):
    import bertpiece
    from tokenizers import Tokenizer as HFTokenizer

    if file_label in SPM:
        yield from spm_calls(os.path.join(CACHE, SPM[file_label]), lines)
        return
    if file_label in BERT:
        vocab, lower = BERT[file_label]
        transformers_tok, text = bert_tokenizers(vocab, lower)
        ref = Reference(HFTokenizer.from_str(text), lines, every)
        ours = bertpiece.BertTokenizer(os.path.join(VOCAB, vocab), do_lower_case=lower)
        yield from bert_calls(ours, ref, lines, transformers_tok)
    else:
        with open(pipeline_files()[file_label], encoding="utf-8") as f:
            text = f.read()
        ref = Reference(HFTokenizer.from_str(text), lines, every)
    ours = bertpiece.Tokenizer.from_str(text)
    for call, n, bad, first in pipeline_calls(ours, ref, lines, every):
        yield f"{call} [{ours._core.fast_path() or 'general'}]", n, bad, first


def main():
    files = {**{k: "pipeline" for k in pipeline_files()}, **{k: "bert" for k in BERT}, **{k: "spm" for k in SPM}}
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", default=",".join(files))
    ap.add_argument("--texts", default=",".join(TEXT_NAMES))
    ap.add_argument("--synthetic-words", type=int, default=1_000_000)
    ap.add_argument("--every", type=int, default=50, help="every column of every EVERY-th row (encode, encode_batch)")
    ap.add_argument("--corpus", default=parity_sweep_texts.CORPUS, help="the folder of en-large.txt and ud-*.txt")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    parity_sweep_texts.CORPUS = args.corpus
    if args.list:
        print("files:", ", ".join(files), "\ntexts:", ", ".join(TEXT_NAMES), "ud-XX, any corpus name")
        return 0
    failed = 0
    for text_label in args.texts.split(","):
        lines = texts(text_label, args.synthetic_words)
        print(f"# {text_label}: {len(lines)} lines, {sum(len(x) for x in lines) / 1e6:.1f} M chars", flush=True)
        for file_label in args.files.split(","):
            start = time.process_time()
            for call, n, bad, first in run(file_label, text_label, lines, args.every):
                failed += bad > 0
                print(f"{file_label}\t{text_label}\t{call}\t{n} rows\t{'OK' if not bad else f'{bad} DIFFER: {first}'}",
                      flush=True)
            print(f"#   {file_label}: {time.process_time() - start:.0f} s CPU", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
