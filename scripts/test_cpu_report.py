"""Sums the per-test CPU times that BERTPIECE_TEST_CPU_LOG=PATH made pytest write
(tests/conftest.py: PATH.gw0, PATH.gw1, ...) per module, largest first, with the
total: what the suite costs, independent of how busy the machine was.

    BERTPIECE_TEST_CPU_LOG=/tmp/cpu make pytest && python scripts/test_cpu_report.py /tmp/cpu [--top N] [--tests]
"""

import argparse
import collections
import glob


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="the BERTPIECE_TEST_CPU_LOG value the run used")
    parser.add_argument("--top", type=int, default=40, help="how many rows to print")
    parser.add_argument("--tests", action="store_true", help="per test function (parameters summed), not per module")
    args = parser.parse_args()
    seconds, counts = collections.Counter(), collections.Counter()
    for name in sorted(glob.glob(glob.escape(args.path) + ".*")):
        with open(name, encoding="utf-8") as f:
            for line in f:
                cpu, nodeid = line.rstrip("\n").split(" ", 1)
                key = nodeid.split("[")[0] if args.tests else nodeid.split("::")[0]
                seconds[key] += float(cpu)
                counts[key] += 1
    print(f"{sum(seconds.values()):8.1f} s CPU, {sum(counts.values())} tests")
    for key, s in seconds.most_common(args.top):
        print(f"{s:8.1f} {counts[key]:5d}  {key}")


if __name__ == "__main__":
    main()
