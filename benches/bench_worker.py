"""bench.py's worker: what one (tokenizer, corpus, threads) case runs in its fresh interpreter
(`bench.py --worker CASE ...`): load the tokenizer, warm up on 50 lines, time encoding the corpus, and print
one JSON line (load and encode seconds, bytes, ids, peak RSS and its growth while encoding). Not run by itself."""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLINGFIRE_MODELS = {"bert-base-uncased": "bert_base_tok", "bert-base-cased": "bert_base_cased_tok",
                    "bert-base-multilingual-cased": "bert_multi_cased", "bert-base-chinese": "bert_chinese"}


def load_case(case, model, vocab, lower, google_lower, threads):
    """Returns (encode(lines) -> number of ids) for `case`."""
    if case == "bertpiece":
        import bertpiece

        tok = bertpiece.BertTokenizer.from_pretrained(model)

        def encode(lines):
            bertpiece._core._forget_words()  # unseen text every pass (see the docstring)
            return len(tok.encode_batch(lines, add_special_tokens=False, num_threads=threads).ids)
        return encode
    if case == "hf-tokenizers":
        os.environ["RAYON_NUM_THREADS"] = str(threads)
        from tokenizers import BertWordPieceTokenizer

        tok = BertWordPieceTokenizer(vocab, lowercase=lower)
        return lambda lines: sum(len(e.ids) for e in tok.encode_batch(lines, add_special_tokens=False))
    if case == "transformers":
        os.environ["RAYON_NUM_THREADS"] = str(threads)
        import transformers

        transformers.logging.set_verbosity_error()
        tok = transformers.BertTokenizer.from_pretrained(_hf_dir(vocab, lower))
        # Padded NumPy arrays, 1,000 lines a call (one call for all of en-large
        # would pad 92k rows to its longest line).
        return lambda lines: sum(int(tok(lines[i:i + 1000], padding=True, return_tensors="np")["attention_mask"].sum())
                                 for i in range(0, len(lines), 1000))
    if case == "tf-text":
        import tensorflow as tf
        import tensorflow_text as tft

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
        tokens = Path(vocab).read_text(encoding="utf-8").split("\n")
        tok = tft.FastBertTokenizer(vocab=tokens[:-1] if tokens[-1] == "" else tokens, suffix_indicator="##",
                                    token_out_type=tf.int64, lower_case_nfd_strip_accents=lower,
                                    unknown_token="[UNK]")
        return lambda lines: sum(int(tf.size(tok.tokenize(tf.constant(lines[i:i + 1000])).flat_values))
                                 for i in range(0, len(lines), 1000))
    if case == "flash-tokenizer":
        from flash_tokenizer import BertTokenizerFlash

        tok = BertTokenizerFlash(str(vocab), do_lower_case=lower).tokenizer
        return lambda lines: sum(map(len, tok.batch_encode(lines, "longest", -1, threads > 1)))
    if case == "blingfire":
        import blingfire

        h = blingfire.load_model(os.path.join(os.path.dirname(blingfire.__file__), BLINGFIRE_MODELS[model] + ".bin"))
        return lambda lines: sum(int((blingfire.text_to_ids(h, line, 4096, 100, True) != 0).sum()) for line in lines)
    if case == "google-original":
        sys.path.insert(0, str(ROOT / "python"))
        from bertpiece.references import load_google

        tok = load_google().FullTokenizer(str(vocab), do_lower_case=google_lower)
        return lambda lines: sum(len(tok.convert_tokens_to_ids(tok.tokenize(line))) for line in lines)
    if case == "transformers-legacy":
        from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

        tok = BertTokenizerLegacy(str(vocab), do_lower_case=lower)
        return lambda lines: sum(len(ids) for ids in tok(lines, add_special_tokens=False)["input_ids"])
    raise SystemExit(f"unknown case {case}")


def _hf_dir(vocab, lower):
    import tempfile

    d = tempfile.mkdtemp(prefix="bench-")
    Path(d, "vocab.txt").write_bytes(Path(vocab).read_bytes())
    Path(d, "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizer",
                                                            "do_lower_case": lower}))
    return d


def worker(args):
    lines = Path(args.file).read_text(encoding="utf-8").split("\n")
    if args.max_bytes:
        kept, size = [], 0
        for line in lines:
            size += len(line.encode()) + 1
            if size > args.max_bytes:
                break
            kept.append(line)
        lines = kept
    nbytes = sum(len(line.encode()) + 1 for line in lines)
    t0 = time.perf_counter()
    encode = load_case(args.case, args.model, args.vocab, args.lower == "1", args.google_lower == "1", args.threads)
    t1 = time.perf_counter()
    encode(lines[:50])  # warm-up
    rss_before = _rss_now_mb()
    # Small corpora encode in milliseconds: repeat until a second has passed and take the median.
    times = []
    while not times or (sum(times) < 1.0 and len(times) < 25):
        t2 = time.perf_counter()
        ntokens = encode(lines)
        times.append(time.perf_counter() - t2)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"load_s": t1 - t0, "encode_s": sorted(times)[len(times) // 2], "runs": len(times),
                      "bytes": nbytes, "tokens": ntokens, "rss_mb": rss_mb, "rss_growth_mb": rss_mb - rss_before}))


def _rss_now_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
