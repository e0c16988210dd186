"""bertpiece in real transformers training and inference code (issue 15).

For each reference mode — "tokenizers" against transformers' `BertTokenizer`,
"transformers" against `BertTokenizerLegacy` — a tiny randomly initialised
BERT (hidden 32, 2 layers, vocabulary = len(tokenizer), fixed seed, no
download) is trained 2 steps by `Trainer(processing_class=tok)` with no
collator and with DataCollatorWithPadding, DataCollatorForLanguageModeling and
DataCollatorForTokenClassification; every batch the model receives and every
logged loss must equal those of the same run with transformers' tokenizer. The
same for the fill-mask, text-classification and token-classification
pipelines, and for `save_pretrained` → `AutoTokenizer.from_pretrained` both
ways on UD lines. Heads: sequence classification where the batch carries a
`label` (no collator, DataCollatorWithPadding: a masked-LM batch needs labels
those collators do not make), masked LM for the LM collator, token
classification for its collator.
"""

import warnings

import numpy as np
import pytest

import bertpiece
from google_reference import data_files, read_lines

warnings.filterwarnings("ignore")
import torch  # noqa: E402  (in the test extras: Trainer and return_tensors="pt" need it)
import datasets  # noqa: E402
import transformers  # noqa: E402
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy  # noqa: E402

transformers.logging.set_verbosity_error()
datasets.disable_progress_bars()
torch.set_num_threads(1)  # a 32-wide model: threads cost more than they save (3x CPU measured)

MODEL = "bert-base-uncased"
SEED = 1234
# short rows of varying length (dynamic padding matters), some with special tokens
TEXTS = [" ".join(line.split()[: 2 + i % 9]) for i, line in
         enumerate(line for f in data_files() for line in read_lines(f)[:30:10])]
TEXTS[::4] = ["Paris is the [MASK] of France.", "[MASK]", "hello [MASK] world", "[CLS] x [SEP]", "[MASK] [MASK]",
              "a [SEP] b", "[UNK]", "[MASK] is", "[PAD] [MASK] [CLS]"]
UD_LINES = [line for f in data_files() for line in read_lines(f)[::25]]
COLLATORS = ["none", "padding", "language_modeling", "token_classification"]


def tokenizers(reference):
    vocab = bertpiece.vocab_path(MODEL)
    theirs = transformers.BertTokenizer(vocab) if reference == "tokenizers" else BertTokenizerLegacy(vocab)
    return bertpiece.BertTokenizer.from_pretrained(MODEL, reference=reference), theirs


@pytest.fixture(scope="module", params=["tokenizers", "transformers"])
def pair(request):
    return tokenizers(request.param)


def tiny_model(head, tok):
    config = transformers.BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=37, max_position_embeddings=64, num_labels=3)
    torch.manual_seed(SEED)
    return getattr(transformers, head)(config).eval()


def dataset(tok, collator):
    data = datasets.Dataset.from_dict(dict(tok(TEXTS, truncation=True, max_length=24)))
    if collator in ("none", "padding"):
        data = data.add_column("label", [i % 3 for i in range(len(data))])
    elif collator == "token_classification":
        data = data.add_column("labels", [[(i + j) % 3 for j in range(len(ids))]
                                          for i, ids in enumerate(data["input_ids"])])
    return data


class RecordingTrainer(transformers.Trainer):
    """Keeps every batch the model is given."""

    def training_step(self, model, inputs, num_items_in_batch=None):
        self.seen.append({k: v.detach().clone() for k, v in inputs.items()})
        return super().training_step(model, inputs, num_items_in_batch)


def train(tok, collator, out):
    head, make = {
        "none": ("BertForSequenceClassification", None),
        "padding": ("BertForSequenceClassification", transformers.DataCollatorWithPadding),
        "language_modeling": ("BertForMaskedLM", transformers.DataCollatorForLanguageModeling),
        "token_classification": ("BertForTokenClassification", transformers.DataCollatorForTokenClassification),
    }[collator]
    args = transformers.TrainingArguments(output_dir=str(out), max_steps=2, per_device_train_batch_size=4,
                                          report_to=[], use_cpu=True, seed=SEED, logging_steps=1,
                                          save_strategy="no", disable_tqdm=True, dataloader_num_workers=0)
    trainer = RecordingTrainer(model=tiny_model(head, tok).train(), args=args, train_dataset=dataset(tok, collator),
                               processing_class=tok, data_collator=make(tok) if make else None)
    trainer.remove_callback(transformers.PrinterCallback)
    trainer.seen = []
    result = trainer.train()
    losses = [log["loss"] for log in trainer.state.log_history if "loss" in log]
    trainer.save_model(str(out / "saved"))  # the model and processing_class.save_pretrained
    return trainer.seen, losses, result.training_loss


@pytest.mark.parametrize("collator", COLLATORS)
def test_trainer_two_steps(pair, collator, tmp_path):
    ours, theirs = pair
    seen, losses, final = train(ours, collator, tmp_path / "ours")
    seen_ref, losses_ref, final_ref = train(theirs, collator, tmp_path / "theirs")
    assert len(seen) == len(seen_ref) == 2
    for step, (batch, batch_ref) in enumerate(zip(seen, seen_ref)):
        assert sorted(batch) == sorted(batch_ref), step
        for key in batch_ref:
            assert batch[key].dtype == batch_ref[key].dtype, (step, key)
            assert torch.equal(batch[key], batch_ref[key]), (step, key)
    assert losses == losses_ref and len(losses) == 2
    assert final == final_ref


def test_trainer_saved_folder_loads_in_pipeline(pair, tmp_path):
    """`trainer.save_model` writes the tokenizer with the model; transformers'
    pipeline loads both from the folder (AutoTokenizer) and predicts as with
    the folder saved with transformers' tokenizer."""
    ours, theirs = pair
    outputs = []
    for name, tok in (("ours", ours), ("theirs", theirs)):
        train(tok, "language_modeling", tmp_path / name)
        pipe = transformers.pipeline("fill-mask", model=str(tmp_path / name / "saved"), device="cpu")
        outputs.append([pipe(text) for text in PIPELINES["fill-mask"][1]])
    assert outputs[1] and outputs[0] == outputs[1]


PIPELINES = {
    "fill-mask": ("BertForMaskedLM", ["Paris is the [MASK] of France.", "hello [MASK] world, héllo"]),
    "text-classification": ("BertForSequenceClassification", ["A short text.", "Héllo wörld [SEP] again"]),
    "token-classification": ("BertForTokenClassification", ["George Washington went to Washington.",
                                                            "Ünïcode naïve café [MASK]"]),
}


def run_pipeline(task, tok):
    head, inputs = PIPELINES[task]
    pipe = transformers.pipeline(task, model=tiny_model(head, tok), tokenizer=tok, device="cpu")
    return [pipe(text) for text in inputs]


@pytest.mark.parametrize("task", list(PIPELINES))
def test_pipeline(pair, task):
    ours, theirs = pair
    expected = run_pipeline(task, theirs)
    assert expected  # the reference pipeline produced something to compare
    assert run_pipeline(task, ours) == expected


def encodings(tok, lines):
    enc = tok(lines, truncation=True, max_length=64)
    return {k: [list(map(int, row)) for row in v] for k, v in enc.items()}


def test_save_pretrained_loads_in_auto_tokenizer(pair, tmp_path):
    ours, _ = pair
    ours.save_pretrained(tmp_path)
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    mine, theirs = encodings(ours, UD_LINES), encodings(auto, UD_LINES)
    assert mine["input_ids"] == theirs["input_ids"]
    for key in mine:  # legacy mode returns no token_type_ids unless asked; the rest must agree
        assert mine[key] == theirs[key], key


def test_transformers_folder_loads_in_bertpiece(pair, tmp_path):
    ours, theirs = pair
    theirs.save_pretrained(tmp_path)
    loaded = type(ours).from_pretrained(str(tmp_path), reference=ours.reference)
    assert encodings(loaded, UD_LINES) == encodings(theirs, UD_LINES)
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    assert encodings(loaded, UD_LINES)["input_ids"] == encodings(auto, UD_LINES)["input_ids"]


def test_np_and_pt_tensors_equal(pair):
    ours, theirs = pair
    for tensors in ("np", "pt"):
        mine = ours(TEXTS, padding=True, truncation=True, max_length=24, return_tensors=tensors)
        ref = theirs(TEXTS, padding=True, truncation=True, max_length=24, return_tensors=tensors)
        assert sorted(mine.keys()) == sorted(ref.keys())
        for key in ref:
            a, b = np.asarray(mine[key]), np.asarray(ref[key])
            assert type(mine[key]) is type(ref[key]) and a.dtype == b.dtype, (tensors, key)
            np.testing.assert_array_equal(a, b)
