"""The work directory of `bertpiece encode` and its resume state.

Everything is written inside `OUTPUT.partial/` next to the output; the
finished files are renamed into place at the end. `state.json` records, at
each checkpoint, how many input rows are fully written and what the writer
needs to continue; it is replaced atomically, so after a crash (even
SIGKILL) it always describes a consistent prefix of the output. Its
fingerprint (`run_fingerprint`) is what a resumed run must match;
`differences` names what does not.
"""

from __future__ import annotations

import json
import os
import shutil

from .. import __version__

STATE_VERSION = 1


class WorkDir:
    def __init__(self, output: str):
        self.path = output + ".partial"
        self.state_path = os.path.join(self.path, "state.json")

    def exists(self) -> bool:
        return os.path.lexists(self.path)

    def create(self):
        os.mkdir(self.path)

    def load_state(self) -> dict | None:
        """The last checkpoint, or None when the run died before its first one."""
        try:
            with open(self.state_path, encoding="utf-8") as f:
                state = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None
        return state if isinstance(state, dict) and state.get("version") == STATE_VERSION else None

    def save_state(self, state: dict):
        tmp = self.state_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"version": STATE_VERSION, **state}, f, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.state_path)
        fd = os.open(self.path, os.O_RDONLY)  # make the rename itself durable
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


# ------------------------------------------------ what a resume must match
def run_fingerprint(args, fmt: str) -> dict:
    """Everything the output bytes depend on; --resume refuses when it changed."""
    def file_id(path):
        st = os.stat(path)
        return [os.path.abspath(path), st.st_size, st.st_mtime_ns]

    keys = ("model", "reference", "lowercase", "strip_accents", "no_special_tokens", "field", "column",
            "max_length", "truncation", "stride", "attention_mask", "token_type_ids", "offsets", "batch_size",
            "checkpoint_every")
    return {"bertpiece": __version__, "format": fmt, "input": file_id(args.input),
            "vocab": file_id(args.vocab) if args.vocab else None, **{k: getattr(args, k) for k in keys},
            **_tokenizer_id(args)}


def _tokenizer_id(args) -> dict:
    """--tokenizer: the file's path and SHA-256 (absent for a BERT run, whose fingerprint stays as it was)."""
    if getattr(args, "tokenizer_file", None) is None:
        return {}
    from .encode_pipeline import file_id

    return {"tokenizer": file_id(args.tokenizer_file)}


def differences(old, new: dict) -> str:
    """What differs between the interrupted run's fingerprint and this one, named as the user knows it."""
    new = json.loads(json.dumps(new))
    if not isinstance(old, dict):
        return "its saved state is unreadable"
    out = []
    for key in new:
        was, now = old.get(key), new[key]
        if was == now:
            continue
        if key in ("input", "vocab"):
            what = "the input" if key == "input" else "--vocab"
            if not (was and now) or was[0] != now[0]:
                out.append(f"{what} was {was[0] if was else 'not given'}, now {now[0] if now else 'not given'}")
            elif was[1] != now[1]:
                out.append(f"{what} {now[0]} changed since (size {was[1]:,} -> {now[1]:,} bytes)")
            else:
                out.append(f"{what} {now[0]} was modified since (same size, new modification time)")
        elif key == "tokenizer":
            if not (was and now) or was[0] != now[0]:
                out.append(f"--tokenizer was {was[0] if was else 'not given'}, now {now[0] if now else 'not given'}")
            else:
                out.append(f"--tokenizer {now[0]} changed since (its contents differ)")
        elif key == "bertpiece":
            out.append(f"it was made by bertpiece {was}, this is {now}")
        elif key == "format":
            out.append(f"output format {was} -> {now}")
        else:
            out.append(f"--{key.replace('_', '-')} was {_shown(was)}, now {_shown(now)}")
    return "; ".join(out) or "its saved state is from another run"


def _shown(value) -> str:
    return "not given" if value is None else json.dumps(value)
