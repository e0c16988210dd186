"""Chat templates in a saved folder, as transformers 5 stores them:
`chat_template.jinja` (the default template), `additional_chat_templates/
<name>.jinja` (named ones), or with `save_jinja_files=False` the
`chat_template` key of tokenizer_config.json (a string, or a list of
{"name", "template"}). A BERT checkpoint has none; they are kept so that a
folder round-trips and `apply_chat_template` (transformers') finds them."""

from __future__ import annotations

import os
from pathlib import Path

CHAT_TEMPLATE_FILE = "chat_template.jinja"
CHAT_TEMPLATE_DIR = "additional_chat_templates"


def save(template, save_directory, config, prefix, save_jinja_files):
    """Writes `template` (None, a str or a dict of name -> str); returns the files written
    and updates `config` (the tokenizer_config.json dict) for the legacy format."""
    if template is None:
        return []
    stem = prefix + "-" if prefix else ""
    default_file = os.path.join(save_directory, stem + CHAT_TEMPLATE_FILE)
    if not save_jinja_files:
        config["chat_template"] = ([{"name": k, "template": v} for k, v in template.items()]
                                   if isinstance(template, dict) else template)
        return []
    templates = template if isinstance(template, dict) else {"default": template}
    directory = os.path.join(save_directory, stem + CHAT_TEMPLATE_DIR)
    targets = []
    for name, text in templates.items():
        if name == "default":
            targets.append((default_file, text))
            continue
        path = os.path.join(directory, f"{name}.jinja")
        # a name is a dict key from the user: never a path out of the folder
        if Path(path).resolve().parent != Path(directory).resolve():
            raise ValueError(f"Invalid chat template name: {name!r}")
        targets.append((path, text))
    written = []
    for path, text in targets:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        written.append(path)
    return written


def load(folder, config):
    """The folder's chat template (the .jinja files win over the config key), or None."""
    template = config.pop("chat_template", None)
    if isinstance(template, list):
        template = {t["name"]: t["template"] for t in template}
    default_file = os.path.join(folder, CHAT_TEMPLATE_FILE)
    if os.path.isfile(default_file):
        with open(default_file, encoding="utf-8") as f:
            template = f.read()
    directory = os.path.join(folder, CHAT_TEMPLATE_DIR)
    if os.path.isdir(directory):
        named = {}
        for entry in sorted(os.listdir(directory)):
            if entry.endswith(".jinja"):
                with open(os.path.join(directory, entry), encoding="utf-8") as f:
                    named[entry[:-len(".jinja")]] = f.read()
        if named:
            template = {**({"default": template} if isinstance(template, str) else template or {}), **named}
    return template


def call_sanitized(tok, text, add_special_tokens, truncation_strategy, max_length, padding_strategy,
                   pad_to_multiple_of, padding_side, return_attention_mask, return_tensors):
    """`__call__(..., sanitize_control_tokens=True)`, what transformers 5.24's
    `apply_chat_template(..., sanitize_control_tokens=True)` passes: each chat was
    rendered from inputs whose control tokens transformers marked, and its
    `encode_marked_chat` encodes those as plain text (through
    `_encode_without_added_tokens`); then truncation and `pad`, as transformers'
    tokenizers backend does it."""
    from transformers.utils.chat_template_utils import encode_marked_chat

    if add_special_tokens and tok.num_special_tokens_to_add(pair=False):
        raise NotImplementedError("`sanitize_control_tokens=True` needs a template that writes special tokens")
    batched = not isinstance(text, str)
    chats = list(text) if batched else [text]
    input_ids = [encode_marked_chat(tok, chat) for chat in chats]
    if truncation_strategy != "do_not_truncate" and max_length is not None:
        input_ids = [ids[:max_length] if tok.truncation_side == "right" else ids[-max_length:] for ids in input_ids]
    return tok.pad({"input_ids": input_ids if batched or return_tensors else input_ids[0]},
                   padding=padding_strategy, max_length=max_length, pad_to_multiple_of=pad_to_multiple_of,
                   padding_side=padding_side, return_attention_mask=return_attention_mask,
                   return_tensors=return_tensors)
