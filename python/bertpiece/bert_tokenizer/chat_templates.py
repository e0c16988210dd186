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
