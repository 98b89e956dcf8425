#!/usr/bin/env python3
"""Start-up of commands spawned directly (posix_spawn, no shell), interleaved, median of RUNS each.

docs/performance.md: scripts/perf.sh times each command with bash's clock, which adds the cost of forking a
shell to every command alike and so softens the ratio; this spawns each program itself, the stricter figure.
Usage: scripts/startup.py RUNS BASELINE COMMAND...   (each command one string; the first is the baseline)
"""
import os
import statistics
import sys
import time


def main() -> int:
    runs = int(sys.argv[1])
    commands = [c.split() for c in sys.argv[2:]]
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    times = [[] for _ in commands]
    for _ in range(runs):
        for k, argv in enumerate(commands):
            start = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
            os.waitpid(pid, 0)
            times[k].append(time.perf_counter() - start)
    base = statistics.median(times[0])
    for argv, t in zip(commands, times):
        m = statistics.median(t)
        print(f"  {m * 1e3:6.2f} ms  {m / base:.2f}x  {' '.join(argv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
