"""What a command left in the temporary directory: `make pytest` runs its tests under
`python scripts/tmp_left_behind.py -- COMMAND...`, which lists the temporary directory
(tempfile.gettempdir(), /tmp here) before and after and names each entry that the run
created and did not remove. `make test` leaves nothing there (docs/testing.md); an entry
made by another program at the same time would be named too, so with
BERTPIECE_TMP_CHECK=warn it is reported without failing (CI runs alone and fails on it).

    python scripts/tmp_left_behind.py -- python -m pytest ...
"""

import os
import subprocess
import sys
import tempfile


def main() -> int:
    if "--" not in sys.argv:
        print(__doc__, file=sys.stderr)
        return 2
    command = sys.argv[sys.argv.index("--") + 1:]
    temp = tempfile.gettempdir()
    before = set(os.listdir(temp))
    status = subprocess.call(command)
    left = sorted(set(os.listdir(temp)) - before)
    if left:
        shown = ", ".join(os.path.join(temp, name) for name in left[:10]) + (" ..." if len(left) > 10 else "")
        print(f"tmp_left_behind: the run left {len(left)} entr{'y' if len(left) == 1 else 'ies'} in {temp}: {shown}",
              file=sys.stderr)
        if status == 0 and os.environ.get("BERTPIECE_TMP_CHECK", "fail") != "warn":
            return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
