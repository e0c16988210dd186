"""tests/preloaded.py's run_python hides nothing: for programs that fail, exit, write to stderr, change the
process's state or start threads, it gives the same (status, stdout, stderr) as a fresh interpreter
(`subprocess.run([sys.executable, ...])`, compared here on the same input), and one request's changes are
not seen by the next."""

import os
import subprocess
import sys
import textwrap

import pytest

import preloaded
from preloaded import run_python


@pytest.fixture(autouse=True)
def _use_the_server(monkeypatch):
    """These test the server: BERTPIECE_TEST_FRESH=1 (every other run_python fresh) does not apply here."""
    monkeypatch.delenv("BERTPIECE_TEST_FRESH", raising=False)


def fresh(args, **kwargs):
    return subprocess.run([sys.executable, *args], capture_output=True, **kwargs)


def same(args, preload=preloaded.PRELOAD, **kwargs):
    """Runs `python ARGS` both ways; asserts the server ran it and that both gave the same result."""
    fallbacks = len(preloaded.FALLBACKS)
    got = run_python(args, preload=preload, **kwargs)
    assert preloaded.FALLBACKS[fallbacks:] == []  # it ran in a forked child, not in a fresh interpreter
    want = fresh(args, **kwargs)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    return got


def code(text):
    return textwrap.dedent(text).lstrip("\n")


def test_it_runs_in_a_preloaded_child():
    """The point of it (and what a test that needs a pristine sys.modules must not use it for)."""
    out = run_python(["-c", "import sys; print('transformers' in sys.modules, 'bertpiece' in sys.modules)"],
                     text=True)
    assert out.stdout == "True True\n" and preloaded.FALLBACKS == []
    assert fresh(["-c", "import sys; print('transformers' in sys.modules)"], text=True).stdout == "False\n"


def test_an_uncaught_exception():
    got = same(["-c", code("""
        import sys
        print("before")
        def inner():
            raise ValueError("boom")
        try:
            inner()
        except ValueError as e:
            raise KeyError("chained") from e
        """)])
    assert got.returncode == 1 and b"KeyError: 'chained'" in got.stderr and b"ValueError: boom" in got.stderr


def test_a_script_whose_traceback_shows_its_lines(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(code("""
        import os, sys
        print(__name__, __file__, sys.argv, sys.path[0] == os.path.dirname(os.path.realpath(sys.argv[0])))
        print(sorted(k for k in vars() if k.startswith("__")), type(__loader__).__name__, __spec__)
        1 / (len(sys.argv) * 0)
        """))
    link = tmp_path / "sub"
    link.mkdir()
    os.symlink(script, link / "linked.py")  # sys.path[0]: the real file's directory
    for args in ([str(script), "a", "b"], ["prog.py", "x"], ["./prog.py"], ["sub/../prog.py"], ["sub/linked.py", "y"]):
        got = same(args, cwd=tmp_path)
        assert got.returncode == 1 and b"ZeroDivisionError" in got.stderr and b"1 / (len(sys.argv) * 0)" in got.stderr


@pytest.mark.parametrize("program", [
    "import sys; print('out'); sys.exit(3)",
    "import sys; sys.exit('a message to stderr')",
    "import sys; sys.exit(None)",
    "raise SystemExit(256 + 7)",
    "import os, sys; print('lost without a flush'); sys.stdout.flush(); print('gone'); os._exit(5)",
    "import atexit; atexit.register(print, 'at exit'); print('main')",
    "raise KeyboardInterrupt",
    "x = (",  # a SyntaxError: no "Traceback" line
    "import sys; sys.excepthook = lambda *a: print('hooked', a[0].__name__); 1/0",
])
def test_exits_and_stderr(program):
    same(["-c", program])


def test_interleaved_stdout_and_stderr_and_stdin():
    program = code("""
        import sys
        data = sys.stdin.read()
        print("read", len(data), repr(data[:5]))
        sys.stderr.write("to stderr\\n")
        print("to stdout, buffered")
        print("to stderr again", file=sys.stderr)
        print(sys.stdin.isatty(), sys.stdout.isatty(), sys.stdout.line_buffering, sys.stderr.line_buffering,
              sys.stdout.encoding, sys.stderr.errors)
        """)
    same(["-c", program, "arg"], input=b"hello\r\nworld\n" * 10000)
    same(["-c", program], input=None)
    got = same(["-c", program], input="naïve\r\n", text=True)
    assert got.stdout.startswith("read 7 'naïve'")  # text: \r\n -> \n, as subprocess does


def test_a_request_sees_nothing_of_the_one_before(tmp_path):
    """cwd, os.environ (and the C environment), sys.modules, sys.path, warnings filters, __main__'s names."""
    change = code("""
        import os, sys, warnings, json
        os.chdir("/")
        os.environ["PRELOADED_LEAK"] = "1"
        os.environ.pop("HOME", None)
        sys.modules["json"] = None
        sys.path.append("/leaked")
        warnings.simplefilter("error")
        leaked_name = 1
        """)
    look = code("""
        import ctypes, os, sys, warnings
        import numpy  # numpy's warnings filters: in the server from the start (see preloaded.py), here too
        import json
        print(os.getcwd(), os.environ.get("PRELOADED_LEAK"), "HOME" in os.environ, json.dumps([1]))
        print(ctypes.CDLL(None).getenv(b"PRELOADED_LEAK"), sys.path, warnings.filters, "leaked_name" in vars())
        """)
    assert run_python(["-c", change]).returncode == 0
    same(["-c", look], cwd=tmp_path)


def test_threads_and_file_descriptors():
    program = code("""
        import os, threading, time
        print(sorted(os.listdir("/proc/self/fd")), threading.active_count())
        def late():
            time.sleep(0.3)
            print("non-daemon thread joined at exit", flush=True)
        threading.Thread(target=late).start()
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        print(threading.active_count(), len(os.listdir("/proc/self/task")) >= 3)
        """)
    same(["-c", program])
    # the server itself still runs no thread: the next request is served, not refused
    same(["-c", "import threading; print(threading.active_count())"])


def test_modules_and_missing_files(tmp_path):
    same(["-m", "json.tool"], input=b'{"b": [1, 2], "a": null}')
    same(["-m", "no_such_module_here"])
    same(["-m", "json.tool", "/no/such/file.json"])
    same([str(tmp_path / "missing.py")])
    (tmp_path / "pkgmain").mkdir()
    (tmp_path / "pkgmain" / "__main__.py").write_text("import sys; print(__name__, sys.argv[1:]); raise OSError(2)")
    same(["-m", "pkgmain", "x"], cwd=tmp_path)


def test_timeout_is_subprocess_s():
    with pytest.raises(subprocess.TimeoutExpired):
        run_python(["-c", "import time; print('started', flush=True); time.sleep(60)"], timeout=1)
    same(["-c", "print('the server goes on')"])


def test_environment_decides_the_server(tmp_path):
    """What Python reads at start-up (here the hash seed) is the request's: another environment, another
    server (preloading only json: what is preloaded does not matter here); TMPDIR (LAZY_ENV) is set per
    request in the same server."""
    hashes = "print(hash('bertpiece'))"
    for seed in ("1", "2"):
        same(["-c", hashes], env=dict(os.environ, PYTHONHASHSEED=seed), preload=("json",))
    same(["-c", "import tempfile; print(tempfile.gettempdir())"], env=dict(os.environ, TMPDIR=str(tmp_path)))


def test_random_generators_are_not_shared():
    """Two fresh interpreters draw different numbers; two children of one server must too (`random` reseeds
    itself after a fork, numpy's global generator is reseeded by the child)."""
    program = "import random, numpy; print(random.random()); print(numpy.random.random())"
    first, second = (run_python(["-c", program], text=True).stdout.split() for _ in range(2))
    assert first[0] != second[0] and first[1] != second[1]


STREAMS = code("""
    import os, sys
    for s in (sys.stdin, sys.stdout, sys.stderr, sys.__stdout__):
        raw = getattr(s.buffer, "raw", s.buffer)  # (stdout and stderr are raw under PYTHONUNBUFFERED)
        print(s.isatty(), s.line_buffering, s.write_through, s.encoding, s.errors, s.mode, s.newlines, raw.name,
              raw._blksize, s.buffer.seekable(), type(s.buffer).__name__, sep=",")
    print(os.get_terminal_size(1) if sys.stdout.isatty() else "no terminal")
    sys.stdout.write("partial line, then a redraw\\r")
    sys.stderr.write("on stderr\\n")
    print("typed:", input("prompt> "))
    """)


def test_on_a_terminal_streams_are_made_as_python_makes_them():
    """A terminal on stdin, stdout and stderr (tests/terminal.py): the same streams, size and output."""
    from terminal import run_python_on_terminal

    for columns in (40, 120):
        got = run_python_on_terminal(["-c", STREAMS], columns, stdin_text="hello\n", timeout=60)
        want = run_python_on_terminal(["-c", STREAMS], columns, stdin_text="hello\n", timeout=60, fresh=True)
        assert got == want and "typed: hello" in got[1]
    assert preloaded.FALLBACKS == []


def test_a_file_and_dev_null_as_stdio(tmp_path):
    def run(start, name):
        with open(tmp_path / f"{name}.out", "wb") as out, open(os.devnull, "rb") as null:
            proc = start(["-c", STREAMS.replace('input("prompt> ")', "sys.stdin.read()")],
                         stdin=null.fileno(), stdout=out.fileno(), stderr=out.fileno())
            return proc.wait(timeout=60), (tmp_path / f"{name}.out").read_bytes()

    got = run(preloaded.start_python, "preloaded")
    want = run(lambda args, **fds: subprocess.Popen([sys.executable, *args], **fds), "fresh")
    assert got == want and preloaded.FALLBACKS == []


def test_what_it_cannot_run_is_refused():
    """Interpreter options other than -c and -m would be start-up flags: refused, not ignored."""
    for args in (["-u", "x.py"], ["-c"], ["-m"], []):
        with pytest.raises(ValueError, match="is not \\[-c CODE"):
            run_python(args)
