"""Run the benchmarks, one process each, one after the other: every bench/<name>.py but this
one (a new benchmark needs no edit here), or those named. `--quick` runs each at a small scale
(`make bench-quick`, a few minutes)."""

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Each is bench/<name>.py, a script that accepts --quick and prints its figures and ratios; in
# name order.
BENCHMARKS = sorted(path.stem for path in HERE.glob("*.py") if path.name != Path(__file__).name)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"benchmarks to run (default: all of {BENCHMARKS})")
    parser.add_argument("--quick", action="store_true", help="each at a small scale")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    failed = []
    for name in args.names or BENCHMARKS:
        print(f"== {name}{' --quick' if args.quick else ''}", flush=True)
        start = time.perf_counter()
        command = [sys.executable, str(HERE / f"{name}.py")] + (["--quick"] if args.quick else [])
        if subprocess.run(command).returncode != 0:
            failed.append(name)
        print(f"== {name}: {time.perf_counter() - start:.0f} s", flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
