_PRISTINE_MAIN = dict(globals())  # first: `python -c`'s __main__ namespace, before this code defines anything
"""The fork server of tests/preloaded.py (read its docstring). Not imported: tests/preloaded.py runs this file's
text as `python -c TEXT SOCKET_FD PRELOAD_JSON`, so the server's sys.path and __main__ are `python -c`'s.

Protocol on the Unix socket SOCKET_FD, one JSON line each way:
  server -> client, once: {"ready": true, "threads": n, "changed": [...], "cpu": s}  (after the preload)
  client -> server: {"args": [...], "cwd": ..., "env": {...}, "executable": ...} with three file descriptors
     (the child's stdin, stdout, stderr) attached to the line's first byte (SCM_RIGHTS)
  server -> client: {"pid": n} then {"rc": n, "cpu": s} (the child's CPU time and the server's own for the
     request), or {"unsafe": "why"} (nothing was run: the client runs a fresh interpreter instead)
The server exits when the client's end of the socket closes."""
import sys

_BASE_PATH = sys.path[1:]  # after `python -c`'s "" (each request sets its own sys.path[0])

import atexit  # noqa: E402  (the two lines above must come first)
import importlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import linecache  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import stat  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import types  # noqa: E402
import warnings  # noqa: E402

_STATE = {"keyboard_interrupt": False}


def _exit_like_an_unhandled_keyboard_interrupt():
    """Registered before anything else, so it runs after every other atexit callback: Python ends a program
    that died of KeyboardInterrupt by killing itself with SIGINT (exit status -2 in subprocess's terms)."""
    if _STATE["keyboard_interrupt"]:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001  (as at exit: a closed or broken stream is not an error here)
                pass
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)


atexit.register(_exit_like_an_unhandled_keyboard_interrupt)


def _threads():
    return max(threading.active_count(), len(os.listdir("/proc/self/task")))


def _cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _global_state(packages):
    """What a preloaded module could change at import that a fresh interpreter's code would see, but for what
    the preloaded packages add for themselves, as they do in any program that imports them (numpy's warnings
    filters for numpy's warnings, transformers' finder of its legacy module names)."""
    def theirs(obj):
        return (getattr(obj, "__module__", None) or type(obj).__module__).split(".")[0] in packages

    def foreign_filter(entry):
        action, message, category, module, lineno = entry
        pattern = getattr(message, "pattern", "") or ""
        return not (theirs(category) or pattern.split(".")[0] in packages)

    return {"sys.path": list(sys.path), "warnings.filters": [f for f in warnings.filters if foreign_filter(f)],
            "logging root handlers": list(logging.root.handlers), "tempfile.tempdir": tempfile.tempdir,
            "sys.meta_path": [x for x in sys.meta_path if not theirs(type(x))],
            "sys.path_hooks": [x for x in sys.path_hooks if not theirs(x)],
            "sys.excepthook": sys.excepthook, "sys.displayhook": sys.displayhook}


def _stop_openblas_threads():
    """numpy's OpenBLAS starts its idle worker threads when loaded. It stops them before every fork anyway
    (its pthread_atfork handler, blas_thread_shutdown_) and starts them again on first use; stopping them
    now leaves the server with one thread, which the check before each fork can then insist on."""
    import ctypes
    with open("/proc/self/maps", encoding="utf-8") as f:
        libraries = {line.split()[-1] for line in f if "openblas" in line and line.rstrip().endswith(".so")}
    for path in sorted(libraries):
        shutdown = getattr(ctypes.CDLL(path), "blas_thread_shutdown_", None)
        if shutdown is not None:
            shutdown()


def _preload(specs):
    """Imports each "module" (or "module:attribute": an attribute a lazy module imports on first access)."""
    packages = {spec.partition(":")[0].split(".")[0] for spec in specs}
    before = _global_state(packages)
    for spec in specs:
        module, _, attribute = spec.partition(":")
        imported = importlib.import_module(module)
        if attribute:
            getattr(imported, attribute)
    _stop_openblas_threads()
    sys.stdout.flush()
    sys.stderr.flush()
    after = _global_state(packages)
    return sorted(name for name in before if before[name] != after[name])


def _print_uncaught(exc):
    """What Python does with an exception that ends the program (PyErr_Print): sys.last_*, then sys.excepthook."""
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, exc.__traceback__
    hook = getattr(sys, "excepthook", None)
    if hook is None:
        sys.stderr.write("sys.excepthook is missing\n")
        sys.__excepthook__(type(exc), exc, exc.__traceback__)
        return
    try:
        hook(type(exc), exc, exc.__traceback__)
    except BaseException as hook_error:  # noqa: BLE001  (printed, as Python prints it)
        sys.stderr.write("Error in sys.excepthook:\n")
        sys.__excepthook__(type(hook_error), hook_error, hook_error.__traceback__)
        sys.stderr.write("\nOriginal exception was:\n")
        sys.__excepthook__(type(exc), exc, exc.__traceback__)


def _stdio_like_python(fd, name, server_stream):
    """sys.stdin/stdout/stderr as Python's start-up makes them (create_stdio in pylifecycle.c): a buffered
    binary stream (stdout and stderr: raw under -u / PYTHONUNBUFFERED, which made the server's write-through),
    its raw stream named "<stdout>", line-buffered on a terminal (stderr: always) unless unbuffered, newline
    "\n", the encoding and errors of the server's (the same environment)."""
    unbuffered = sys.stdout.write_through
    buffered = io.open(fd, "rb" if fd == 0 else "wb", 0 if unbuffered and fd != 0 else -1, closefd=False)
    raw = buffered if isinstance(buffered, io.FileIO) else buffered.raw
    raw.name = f"<{name}>"
    line_buffering = not unbuffered and (raw.isatty() or fd == 2)
    stream = io.TextIOWrapper(buffered, server_stream.encoding, server_stream.errors, "\n", line_buffering,
                              unbuffered)
    stream.mode = "r" if fd == 0 else "w"
    return stream


def _child(request, fds, sock):
    """In the forked child: become `python ARGS` in cwd with env, run, and end as that interpreter would."""
    sock.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):  # the server's are pipes: a terminal's or a file's differ
            stream = _stdio_like_python(fd, name, getattr(sys, name))
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    main = types.ModuleType("__main__")
    main.__dict__.update(_PRISTINE_MAIN)
    if "__annotations__" in _PRISTINE_MAIN:
        main.__annotations__ = {}
    sys.modules["__main__"] = main
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()
    linecache.clearcache()
    if "multiprocessing.process" in sys.modules:  # the cwd when it was imported: the server's, else
        sys.modules["multiprocessing.process"].ORIGINAL_DIR = os.path.abspath(request["cwd"])
    if "numpy.random" in sys.modules:  # its global generator was seeded once, in the server
        sys.modules["numpy.random"].seed()  # (the `random` module reseeds itself after a fork)
    args = request["args"]
    sys.orig_argv = [request["executable"], *args]
    script = None
    try:
        if args[0] == "-c":
            sys.argv = ["-c", *args[2:]]
            sys.path[:] = [""] + _BASE_PATH
            code = compile(args[1], "<string>", "exec", dont_inherit=True)
            if hasattr(linecache, "_register_code"):  # Python >= 3.13 shows `-c` lines in tracebacks
                linecache._register_code("<string>", args[1], "<string>")
            exec(code, main.__dict__)
        elif args[0] == "-m":
            sys.argv = ["-m", *args[2:]]
            sys.path[:] = [os.getcwd()] + _BASE_PATH
            import runpy
            runpy._run_module_as_main(args[1])
        else:
            sys.argv = list(args)
            script = os.path.join(os.getcwd(), args[0])  # joined, not normalized: Python's __file__
            try:
                with open(script, "rb") as f:
                    source = f.read()
            except OSError as e:
                sys.stderr.write(f"{request['executable']}: can't open file {script!r}: [Errno {e.errno}] "
                                 f"{e.strerror}\n")
                raise SystemExit(2) from None
            sys.path[:] = [os.path.dirname(os.path.realpath(args[0]))] + _BASE_PATH
            from importlib.machinery import SourceFileLoader
            main.__file__, main.__cached__ = script, None
            main.__loader__ = SourceFileLoader("__main__", script)
            exec(compile(source, script, "exec", dont_inherit=True), main.__dict__)
    except SystemExit:
        raise  # to the top of this process: Python's own exit (atexit, thread joins, flushes) follows
    except BaseException as exc:  # noqa: BLE001  (printed as Python prints an uncaught exception)
        exc.__traceback__ = exc.__traceback__.tb_next  # drop this function's frame: the program's own remain
        _print_uncaught(exc)
        _STATE["keyboard_interrupt"] = isinstance(exc, KeyboardInterrupt)
        del exc
        _end_script(main, script)
        raise SystemExit(1) from None
    _end_script(main, script)
    raise SystemExit(0)


def _end_script(main, script):
    """Python removes a script's __file__ and __cached__ from __main__ once it has run (before exiting)."""
    if script is not None:
        main.__dict__.pop("__file__", None)
        main.__dict__.pop("__cached__", None)


def _read_line(sock, buffered):
    """(line, file descriptors that came with it) or (None, []) when the client has gone."""
    fds = []
    while b"\n" not in buffered[0]:
        data, received, _, _ = socket.recv_fds(sock, 1 << 16, 3)
        fds.extend(received)
        if not data:
            return None, fds
        buffered[0] += data
    line, _, buffered[0] = buffered[0].partition(b"\n")
    return json.loads(line), fds


def _send(sock, message):
    sock.sendall(json.dumps(message).encode() + b"\n")


def serve(sock_fd, specs):
    sock = socket.socket(fileno=sock_fd)
    changed = _preload(specs)
    import gc
    gc.freeze()  # the children's collections skip the preloaded objects: no copy-on-write of their pages
    _send(sock, {"ready": True, "threads": _threads(), "changed": changed, "cpu": _cpu(resource.RUSAGE_SELF)})
    buffered = [b""]
    while True:
        request, fds = _read_line(sock, buffered)
        if request is None:
            return
        threads = _threads()
        if threads != 1 or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            _send(sock, {"unsafe": f"{threads} threads in the server" if threads != 1 else "no stdio"})
            continue
        start = _cpu(resource.RUSAGE_SELF)
        pid = os.fork()
        if pid == 0:
            _child(request, fds, sock)  # never returns: ends in SystemExit, handled by Python at the top
        for fd in fds:
            os.close(fd)
        _send(sock, {"pid": pid})
        _, status, usage = os.wait4(pid, 0)
        cpu = usage.ru_utime + usage.ru_stime + _cpu(resource.RUSAGE_SELF) - start
        _send(sock, {"rc": os.waitstatus_to_exitcode(status), "cpu": cpu})


serve(int(sys.argv[1]), json.loads(sys.argv[2]))
