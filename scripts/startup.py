#!/usr/bin/env python3
"""Start-up of commands spawned directly (posix_spawn, no shell), interleaved, median of RUNS each: wall time, and
the CPU time the process used (user + system, from wait4), which a busy or slow stretch of a shared VM moves less.

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
    cpu = [[] for _ in commands]
    for _ in range(runs):
        for k, argv in enumerate(commands):
            start = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
            _, _, usage = os.wait4(pid, 0)
            times[k].append(time.perf_counter() - start)
            cpu[k].append(usage.ru_utime + usage.ru_stime)
    base, base_cpu = statistics.median(times[0]), statistics.median(cpu[0])
    for argv, t, c in zip(commands, times, cpu):
        m, mc = statistics.median(t), statistics.median(c)
        print(f"  {m * 1e3:6.2f} ms  {m / base:.2f}x   cpu {mc * 1e3:6.2f} ms  {mc / base_cpu:.2f}x  {' '.join(argv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
