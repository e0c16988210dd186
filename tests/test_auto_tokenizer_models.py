"""bertpiece.AutoTokenizer's objects in transformers' Trainer and pipelines, against
transformers.AutoTokenizer on the same folder (RoBERTa and XLM-R shapes): a tiny
randomly initialised model (fixed seed, nothing downloaded) trained 2 steps with
DataCollatorWithPadding must see the same batches and log the same losses, and the
fill-mask and text-classification pipelines must answer alike."""

import warnings

import datasets
import pytest
import torch
import transformers

import bertpiece
from auto_shapes import folder
from bpe_shapes import UD_FILES, ud_lines

SEED = 7
TEXTS = [line for path in UD_FILES for line in ud_lines(path, 2)]


def tiny(head, tok):
    config = transformers.BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=37, max_position_embeddings=256, num_labels=3,
                                     pad_token_id=tok.pad_token_id)
    torch.manual_seed(SEED)
    return getattr(transformers, head)(config).eval()


class RecordingTrainer(transformers.Trainer):
    def training_step(self, model, inputs, num_items_in_batch=None):
        self.seen.append({k: v.detach().clone() for k, v in inputs.items()})
        return super().training_step(model, inputs, num_items_in_batch)


def train(tok, out):
    data = datasets.Dataset.from_dict(dict(tok(TEXTS, truncation=True, max_length=24)))
    data = data.add_column("label", [i % 3 for i in range(len(data))])
    args = transformers.TrainingArguments(output_dir=str(out), max_steps=2, per_device_train_batch_size=4,
                                          report_to=[], use_cpu=True, seed=SEED, logging_steps=1,
                                          save_strategy="no", disable_tqdm=True, dataloader_num_workers=0)
    trainer = RecordingTrainer(model=tiny("BertForSequenceClassification", tok).train(), args=args,
                               train_dataset=data, processing_class=tok,
                               data_collator=transformers.DataCollatorWithPadding(tok))
    trainer.seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.train()
    return trainer.seen, [h["loss"] for h in trainer.state.log_history if "loss" in h]


@pytest.mark.parametrize("shape", ["roberta", "xlmr"])
def test_trainer_and_pipelines(shape, tmp_path):
    torch.set_num_threads(1)
    path = folder(shape)
    hf, ours = transformers.AutoTokenizer.from_pretrained(path), bertpiece.AutoTokenizer.from_pretrained(path)
    (seen_hf, loss_hf), (seen_ours, loss_ours) = train(hf, tmp_path / "hf"), train(ours, tmp_path / "ours")
    assert len(seen_ours) == len(seen_hf) == 2 and loss_ours == loss_hf
    for a, b in zip(seen_hf, seen_ours):
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    masked = [f"{TEXTS[i][:30]} {hf.mask_token} {TEXTS[i][30:60]}" for i in range(4)]
    fill = {name: transformers.pipeline("fill-mask", model=tiny("BertForMaskedLM", tok), tokenizer=tok, top_k=3)
            for name, tok in (("hf", hf), ("ours", ours))}
    assert fill["ours"](masked) == fill["hf"](masked)
    classify = {name: transformers.pipeline("text-classification", model=tiny("BertForSequenceClassification", tok),
                                            tokenizer=tok) for name, tok in (("hf", hf), ("ours", ours))}
    assert classify["ours"](TEXTS[:6]) == classify["hf"](TEXTS[:6])
