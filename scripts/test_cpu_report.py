"""Sums the per-test CPU and wall times that BERTPIECE_TEST_CPU_LOG=PATH made pytest write
(tests/conftest.py: PATH.gw0, PATH.gw1, ...) per module, largest first, with the
total: what the suite costs, independent of how busy the machine was. "waited" is wall
minus CPU: on a quiet machine, the time a test kept its worker busy without using a
core (sleeps, lock waits, a child process starting); under load it also holds the time
other jobs took the core.

    BERTPIECE_TEST_CPU_LOG=/tmp/cpu make pytest && python scripts/test_cpu_report.py /tmp/cpu [--top N] [--tests] [--by waited]
"""

import argparse
import collections
import glob


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="the BERTPIECE_TEST_CPU_LOG value the run used")
    parser.add_argument("--top", type=int, default=40, help="how many rows to print")
    parser.add_argument("--tests", action="store_true", help="per test function (parameters summed), not per module")
    parser.add_argument("--by", choices=("cpu", "waited"), default="cpu", help="the column to sort by")
    args = parser.parse_args()
    cpu, waited, counts = collections.Counter(), collections.Counter(), collections.Counter()
    # (the files of tests/conftest.py's workers: PATH.gw0, PATH.gw1... or PATH.main without xdist)
    names = glob.glob(glob.escape(args.path) + ".gw*") + glob.glob(glob.escape(args.path) + ".main")
    for name in sorted(names):
        with open(name, encoding="utf-8") as f:
            for line in f:
                fields = line.rstrip("\n").split(" ", 2)
                if len(fields) == 3 and fields[1][:1].isdigit():
                    seconds, wall, nodeid = float(fields[0]), float(fields[1]), fields[2]
                else:  # a log written before wall times were logged: "cpu nodeid"
                    seconds, nodeid = float(fields[0]), line.rstrip("\n").split(" ", 1)[1]
                    wall = seconds
                key = nodeid.split("[")[0] if args.tests else nodeid.split("::")[0]
                cpu[key] += seconds
                waited[key] += max(wall - seconds, 0.0)
                counts[key] += 1
    print(f"{sum(cpu.values()):8.1f} s CPU, {sum(waited.values()):8.1f} s waited, {sum(counts.values())} tests")
    print(f"{'CPU s':>8} {'waited':>8} {'tests':>5}")
    for key, _ in (cpu if args.by == "cpu" else waited).most_common(args.top):
        print(f"{cpu[key]:8.1f} {waited[key]:8.1f} {counts[key]:5d}  {key}")


if __name__ == "__main__":
    main()
