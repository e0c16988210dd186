"""Running a command on a pseudo-terminal of a given width, for the tests of
what a user sees: the live progress line, wrapped summaries, prompts."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time

import bertpiece
from bertpiece.terminal.text import width
from preloaded import start_python

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Where the bertpiece under test is imported from (the checkout's python/ in a development
# install, site-packages after `pip install .`): what the subprocesses must import too.
SRC = os.path.dirname(os.path.dirname(os.path.abspath(bertpiece.__file__)))
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the checkout: docs/, samples/


def run_on_terminal(argv, columns, *, stdin_text=None, cwd=None, timeout=120):
    """`python -m bertpiece ARGV` with stdin, stdout and stderr on a pty of `columns`
    columns (COLUMNS unset, so the program must ask the terminal). `stdin_text` is
    typed on the terminal, then Ctrl-D, once the program has shown something (a prompt)
    or after 10 s. Returns (exit status, everything shown). The program runs in a forked
    child of tests/preloaded.py's server, which makes sys.stdin/stdout/stderr for the
    terminal as Python's start-up does."""
    return run_python_on_terminal(["-m", "bertpiece", *map(str, argv)], columns, stdin_text=stdin_text, cwd=cwd,
                                  timeout=timeout)


def run_python_on_terminal(args, columns, *, stdin_text=None, cwd=None, timeout=120, fresh=False):
    """run_on_terminal for `python ARGS`; fresh: in a fresh interpreter (subprocess.Popen)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    if fresh:
        proc = subprocess.Popen([sys.executable, *args], stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                                close_fds=True)
    else:
        proc = start_python(args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    type_by = time.monotonic() + 10
    while time.monotonic() < deadline:
        if stdin_text is not None and (chunks or time.monotonic() > type_by):
            time.sleep(0.2)  # the rest of the prompt
            os.write(master, stdin_text.encode() + b"\x04")
            stdin_text = None
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child's side is closed
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None and not select.select([master], [], [], 0.2)[0]:
            break
    else:
        proc.kill()
    os.close(master)
    code = proc.wait(timeout=30)
    return code, b"".join(chunks).decode("utf-8", "replace")


def screen_rows(output: str):
    """Each piece of text drawn from a column-0 start ("\\r" or a new line), ANSI codes removed."""
    rows = []
    for line in output.replace("\r\n", "\n").split("\n"):
        rows.extend(ANSI.sub("", part) for part in line.split("\r"))
    return rows


def widest(output: str) -> int:
    return max((width(r) for r in screen_rows(output)), default=0)
