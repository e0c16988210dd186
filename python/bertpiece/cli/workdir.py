"""The work directory of `bertpiece encode` and its resume state.

Everything is written inside `OUTPUT.partial/` next to the output; the
finished files are renamed into place at the end. `state.json` records, at
each checkpoint, how many input rows are fully written and what the writer
needs to continue; it is replaced atomically, so after a crash (even
SIGKILL) it always describes a consistent prefix of the output.
"""

from __future__ import annotations

import json
import os
import shutil

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
