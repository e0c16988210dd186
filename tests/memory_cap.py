"""A call run in a child process whose address space is capped (RLIMIT_AS) a
little above what the child maps once its input exists, so an allocation that
would succeed on a big machine fails there the way it fails on a small one:
what tests/test_limits*.py check is that the call then ends with a
`MemoryError` (or succeeds), never an abort, a panic or another signal."""

from preloaded import run_python

CHILD = """
import resource, warnings
SETUP
with open("/proc/self/statm") as f:
    used = int(f.read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (CAP << 20),) * 2)
warnings.simplefilter("ignore")
try:
    CALL
    print("ok")
except MemoryError as e:
    print("MemoryError", e)
"""


def run_capped(setup, call, cap_mib, timeout=300):
    """Runs `setup` (Python lines: imports, the tokenizer, the input), then caps the child's address space
    `cap_mib` MiB above what it maps and runs `call`; returns what it printed ("ok" or "MemoryError ...")
    after asserting that it ended cleanly."""
    code = CHILD.replace("SETUP", setup).replace("CAP", str(cap_mib)).replace("CALL", call)
    r = run_python(["-c", code], text=True, timeout=timeout)
    assert r.returncode == 0, f"{call}: child ended with {r.returncode} (a negative code is a signal):\n{r.stderr[-3000:]}"
    assert "panicked" not in r.stderr, r.stderr[-3000:]
    assert r.stdout.startswith(("MemoryError", "ok")), (call, r.stdout, r.stderr[-3000:])
    return r.stdout
