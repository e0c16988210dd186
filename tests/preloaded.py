"""`run_python(args, ...)`: `subprocess.run([sys.executable, *args], capture_output=True, ...)` without paying
for a fresh interpreter's imports each time (issue 24: each of test_docs' Python blocks spent 0.5-2 s of
CPU importing numpy, transformers and bertpiece before running a few lines; here a request costs ~0.1 s).

How: one fork server per pytest process (and per environment, below), started on first use as
`python -c TEXT` with tests/preloaded_server.py's text. It imports PRELOAD (bertpiece, numpy, tokenizers,
transformers and the lazily imported parts the tests use), then, per request, forks a child that becomes
`python ARGS`: cwd, the whole environment (os.environ and the C environ), sys.argv and sys.orig_argv,
sys.path[0] as Python sets it for `-c` (""), `-m` (the cwd) or a script (its directory, symlinks
resolved), a fresh `__main__` module (`__name__ == "__main__"`, `__file__` and its loader for a script),
empty import caches, stdin, stdout and stderr on pipes like subprocess's (start_python: on the caller's
file descriptors, a terminal's for tests/terminal.py, with sys.stdin/stdout/stderr made for them as
Python's start-up makes them). The code runs as written (compiled without the runner's `__future__`
flags); a SystemExit ends it through Python's own exit (atexit callbacks, non-daemon threads joined,
streams flushed: its status is the child's), an uncaught exception is printed by sys.excepthook without
the runner's frame, then status 1 (KeyboardInterrupt: killed by SIGINT, as Python does). What a fresh
`python` prints for a script it cannot open it prints. tests/test_preloaded.py checks all of this against
real fresh interpreters: same (status, stdout, stderr).

Why forking is safe here: the server is a process of its own that only imports modules (it never tokenizes,
so no bertpiece or tokenizers thread pool exists, and torch is not imported: transformers' AutoTokenizer,
which imports it, is not preloaded). numpy's OpenBLAS starts an idle thread when loaded; the server stops
it (blas_thread_shutdown_, which OpenBLAS's own fork handler calls before every fork anyway; it starts
again on first use). Before every fork the server counts its threads (threading and /proc/self/task) and,
if there is more than one, runs nothing: that request, and any later one for that server, gets a fresh
interpreter (`FALLBACKS` says why). The same if the preload printed anything (a fresh interpreter would
print it in the program's output) or changed global state a program could see (sys.path, warnings
filters, logging handlers, sys.meta_path...) but for what the preloaded packages add for themselves, as in
any program that imports them (numpy's warnings filters, transformers' finder for its old module names).
A server is keyed by the environment it was started with, minus LAZY_ENV (read by nothing at import):
what Python and the preloaded modules read at start-up (PYTHONPATH, PYTHONHASHSEED, LC_ALL,
HF_HUB_OFFLINE...) is the request's; another environment gets another server.

What a forked child does NOT have that a fresh interpreter would, so a test whose point is one of these must
keep `subprocess.run([sys.executable, ...])` (with a one-line reason):
- a pristine sys.modules: "import bertpiece does not import transformers", a module missing or blocked
  (sys.modules['pyarrow'] = None before the import), import-time side effects or warnings, the first
  import's time; PRELOAD's packages' warnings filters are there before the program imports them;
- environment variables read when a module is imported (they are the request's: the server started with
  them), but a test of that reading, or of BERTPIECE_NUM_THREADS at pool creation, is a test of start-up;
- its own hash seed: every child of one server shares the server's (a different one from the test
  process's unless PYTHONHASHSEED is set, and PYTHONHASHSEED gives its own server);
- its own start-up: the CLI's startup time, argv decoding (bytes in argv), interpreter flags, resource
  limits or signal dispositions inherited from the test process;
- a fresh process's details: os.getppid() and /proc/self/cmdline are the server's, numpy's OpenBLAS
  thread starts at first use, not at import, the preloaded objects are in gc's permanent generation
  (gc.freeze(): the children's collections do not touch, hence do not copy, the server's memory), and
  what a preloaded module kept of the server's sys.stderr (transformers' logging handler) is the
  server's stream object, writing to the child's stderr.

BERTPIECE_TEST_FRESH=1 makes every run_python a fresh interpreter (the suite then runs as before: a way to
check that the runner hides nothing). CPU_SECONDS[0] sums the servers' CPU time (start-up and children):
tests/conftest.py adds it to BERTPIECE_TEST_CPU_LOG's figures, which would otherwise not see it (the
children are the server's, not pytest's)."""

from __future__ import annotations

import atexit
import json
import locale
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import time

PRELOAD = ("numpy", "tokenizers", "transformers", "transformers:BertTokenizer", "bertpiece",
           "bertpiece:BertTokenizer", "bertpiece.cli")
LAZY_ENV = ("TMPDIR", "PYTEST_CURRENT_TEST")  # read at run time, never at import: may differ per request
SERVER_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "preloaded_server.py")
READY_TIMEOUT = 300
MAX_SERVERS = 4

FALLBACKS: list[str] = []  # why a request got a fresh interpreter
CPU_SECONDS = [0.0]
_SERVERS: dict = {}
_UNUSABLE: dict = {}  # server key -> why it cannot be used (not tried again)


class _Unusable(Exception):
    pass


class _NoAnswer(_Unusable):
    pass


class _Busy(Exception):
    """The server is running a start_python child: this request gets a fresh interpreter."""


class _Server:
    def __init__(self, env, preload):
        ours, theirs = socket.socketpair()
        with open(SERVER_SOURCE, encoding="utf-8") as f:
            source = f.read()
        start_env = {k: v for k, v in env.items() if k not in LAZY_ENV}
        # stdout and stderr: one pipe, read after the preload (anything in it: the preload printed something)
        out_r, out_w = os.pipe()
        self.sock = ours
        self.proc = subprocess.Popen([sys.executable, "-c", source, str(theirs.fileno()), json.dumps(preload)],
                                     stdin=subprocess.PIPE, stdout=out_w, stderr=out_w, cwd="/", env=start_env,
                                     pass_fds=[theirs.fileno()])
        theirs.close()
        os.close(out_w)
        self.proc.stdin.close()  # a closed pipe, like most requests' stdin
        self.out_r = out_r  # kept open: what the server prints if it fails is the error's detail
        self.buffered = b""
        self.pending = False  # a start_python child runs
        try:
            ready = self._read(time.monotonic() + READY_TIMEOUT)
        except _Unusable:
            self.close()
            raise
        CPU_SECONDS[0] += ready["cpu"]
        printed = _drain(out_r)
        if ready["threads"] != 1 or ready["changed"] or printed:
            self.close()
            raise _Unusable(f"preloading {preload}: {ready['threads']} threads, changed {ready['changed']}, "
                            f"printed {printed!r}")

    def _read(self, deadline):
        while b"\n" not in self.buffered:
            self.sock.settimeout(max(0.001, deadline - time.monotonic()) if deadline is not None else None)
            try:
                data = self.sock.recv(1 << 16)
            except TimeoutError:
                raise _NoAnswer("no answer from the server") from None
            if not data:
                time.sleep(0.1)
                raise _Unusable(f"the server ended (status {self.proc.poll()}): {_drain(self.out_r)!r}")
            self.buffered += data
        line, _, self.buffered = self.buffered.partition(b"\n")
        return json.loads(line)

    def start(self, args, cwd, env, fds):
        """Forks the child on stdin, stdout, stderr = fds (sent, not closed); its pid. _Unusable if the server
        ran nothing."""
        if self.pending:
            raise _Busy()
        request = {"args": args, "cwd": cwd, "env": env, "executable": sys.executable}
        socket.send_fds(self.sock, [json.dumps(request).encode() + b"\n"], fds)
        started = self._read(time.monotonic() + 60)
        if "unsafe" in started:
            raise _Unusable(started["unsafe"])
        self.pending = True
        return started["pid"]

    def ended(self, deadline):
        """The child's status (_NoAnswer if it has not ended by the deadline)."""
        ended = self._read(deadline)
        self.pending = False
        CPU_SECONDS[0] += ended["cpu"]
        return ended["rc"]

    def run(self, args, cwd, env, input, timeout):
        """(status, stdout bytes, stderr bytes); _Unusable if the server ran nothing."""
        stdin_r, stdin_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            pid = self.start(args, cwd, env, [stdin_r, out_w, err_w])
        except BaseException:
            for fd in (stdin_w, out_r, err_r):
                os.close(fd)
            raise
        finally:
            for fd in (stdin_r, out_w, err_w):
                os.close(fd)
        deadline = time.monotonic() + timeout if timeout is not None else None
        out, err, timed_out = _communicate(stdin_w, out_r, err_r, input or b"", deadline)
        try:
            if not timed_out:
                try:  # the child may outlive its closed stdout and stderr (as under subprocess.run)
                    rc = self.ended(deadline)  # (None: no time limit)
                except _NoAnswer:
                    timed_out = True
            if timed_out:
                os.kill(pid, signal.SIGKILL)
                rc = self.ended(time.monotonic() + 60)
        except _Unusable as e:  # the program has (partly) run: not one to run again in a fresh interpreter
            raise RuntimeError(f"tests/preloaded.py: the server failed while running {args!r}: {e}") from None
        if timed_out:
            raise subprocess.TimeoutExpired([sys.executable, *args], timeout, out, err)
        return rc, out, err

    def close(self):
        self.sock.close()  # the server exits when its socket closes
        before = _children_cpu()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        CPU_SECONDS[0] -= _children_cpu() - before  # now in RUSAGE_CHILDREN: not to be counted twice
        os.close(self.out_r)


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _drain(fd):
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _communicate(stdin_w, out_r, err_r, data, deadline):
    """subprocess.communicate on raw descriptors: feed stdin, read both outputs to their end (closes all three)."""
    chunks = {out_r: [], err_r: []}
    with selectors.DefaultSelector() as selector:
        if data:
            os.set_blocking(stdin_w, False)
            selector.register(stdin_w, selectors.EVENT_WRITE)
        else:
            os.close(stdin_w)
        for fd in (out_r, err_r):
            selector.register(fd, selectors.EVENT_READ)
        view, timed_out = memoryview(data), False
        while selector.get_map():
            remaining = deadline - time.monotonic() if deadline is not None else None
            if remaining is not None and remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(remaining):
                if key.fd == stdin_w:
                    try:
                        view = view[os.write(stdin_w, view[:1 << 16]):]
                    except BrokenPipeError:
                        view = view[:0]
                    if not view:
                        selector.unregister(stdin_w)
                        os.close(stdin_w)
                else:
                    chunk = os.read(key.fd, 1 << 16)
                    if chunk:
                        chunks[key.fd].append(chunk)
                    else:
                        selector.unregister(key.fd)
                        os.close(key.fd)
        for key in list(selector.get_map().values()):
            os.close(key.fd)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r]), timed_out


def _on_server(env, preload, call):
    """call(server) on the server for this environment (started if need be)."""
    key = (tuple(sorted((k, v) for k, v in env.items() if k not in LAZY_ENV)), preload)
    if key in _UNUSABLE:
        raise _Unusable(_UNUSABLE[key])
    try:
        server = _SERVERS.get(key)
        if server is None:
            if len(_SERVERS) >= MAX_SERVERS:
                _SERVERS.pop(next(k for k, v in _SERVERS.items() if not v.pending)).close()
            server = _SERVERS[key] = _Server(env, list(preload))
        return call(server)
    except _Unusable as e:
        _UNUSABLE[key] = str(e)
        if key in _SERVERS:
            _SERVERS.pop(key).close()
        raise


@atexit.register
def close_servers():
    while _SERVERS:
        _SERVERS.popitem()[1].close()


def run_python(args, *, cwd=None, env=None, input=None, timeout=None, text=False, check=False,
               preload=PRELOAD):
    """`subprocess.run([sys.executable, *args], capture_output=True, cwd=cwd, env=env, input=input,
    timeout=timeout, text=text, check=check)` in a forked child of a preloaded interpreter. args:
    ["-c", code, *argv], ["-m", module, *argv] or [script, *argv]; stdin is a pipe holding `input` (or
    empty). Falls back to that very subprocess.run when no server can be used (FALLBACKS says why)."""
    args, cwd, env = _checked(args, cwd, env)
    if text and isinstance(input, str):
        input = input.encode(locale.getpreferredencoding(False))
    result = None
    if os.environ.get("BERTPIECE_TEST_FRESH") != "1":
        try:
            result = _on_server(env, tuple(preload), lambda server: server.run(args, cwd, env, input, timeout))
        except _Unusable as e:
            FALLBACKS.append(f"{args[:2]}: {e}")
        except _Busy:
            pass
    if result is None:
        proc = subprocess.run([sys.executable, *args], capture_output=True, cwd=cwd, env=env, input=input,
                              timeout=timeout)
        result = proc.returncode, proc.stdout, proc.stderr
    rc, out, err = result
    if text:
        encoding = locale.getpreferredencoding(False)
        out, err = (data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n") for data in (out, err))
    completed = subprocess.CompletedProcess([sys.executable, *args], rc, out, err)
    if check:
        completed.check_returncode()
    return completed


def _checked(args, cwd, env):
    args = [os.fspath(a) for a in args]
    env = dict(os.environ if env is None else env)
    cwd = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
    if not args or (args[0].startswith("-") and (args[0] not in ("-c", "-m") or len(args) < 2)):
        raise ValueError(f"tests/preloaded.py: {args!r} is not [-c CODE | -m MODULE | SCRIPT] ARGS")
    if not os.path.isdir(cwd):
        raise FileNotFoundError(2, "No such file or directory", cwd)  # as subprocess's chdir would
    return args, cwd, env


class PreloadedProcess:
    """A start_python child: Popen's pid, returncode, poll(), wait(timeout) and kill()."""

    def __init__(self, server, pid):
        self.server, self.pid, self.returncode = server, pid, None

    def wait(self, timeout=None):
        if self.returncode is None:
            try:
                self.returncode = self.server.ended(time.monotonic() + timeout if timeout is not None else None)
            except _NoAnswer:
                raise subprocess.TimeoutExpired(self.pid, timeout) from None
        return self.returncode

    def poll(self):
        try:
            return self.wait(0)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)


def start_python(args, *, stdin, stdout, stderr, cwd=None, env=None, preload=PRELOAD):
    """`subprocess.Popen([sys.executable, *args], stdin=stdin, stdout=stdout, stderr=stderr, cwd=cwd, env=env)`
    for file descriptors (a terminal's, a file's...: the child's sys.stdin, sys.stdout and sys.stderr are
    made for them as Python's start-up makes them), in a forked child of a preloaded interpreter; falls back
    to that Popen like run_python. One at a time per server: until it ends, run_python runs fresh ones."""
    args, cwd, env = _checked(args, cwd, env)
    if os.environ.get("BERTPIECE_TEST_FRESH") != "1":
        try:
            server_pid = _on_server(env, tuple(preload),
                                    lambda server: (server, server.start(args, cwd, env, [stdin, stdout, stderr])))
            return PreloadedProcess(*server_pid)
        except _Unusable as e:
            FALLBACKS.append(f"{args[:2]}: {e}")
        except _Busy:
            pass
    return subprocess.Popen([sys.executable, *args], stdin=stdin, stdout=stdout, stderr=stderr, cwd=cwd, env=env,
                            close_fds=True)
