#!/usr/bin/env python3
"""check streams its results: its peak memory does not grow with workloads x GPUs in any format.

20 times the workloads may add the file's own text (check reads a file whole, at most 64 MiB) and little else:
the results are written as they are checked. Held results take ~600 bytes each as JSON text and more as
objects, so 40,000 workloads x 2 GPUs held would add well over the 8 MB (beside the file) allowed here."""
import json, os, resource, subprocess, sys, tempfile

binary = sys.argv[1]


def peak_mb(args):
    # Each measurement in a child of its own: RUSAGE_CHILDREN is the largest of the children waited for.
    code = ("import resource, subprocess, sys\n"
            "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
            "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", code] + args, capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), int(out[1]) / 1024


with tempfile.TemporaryDirectory() as d:
    files = {}
    for n in (2000, 40000):
        path = os.path.join(d, f"w{n}.json")
        with open(path, "w") as f:
            json.dump([{"name": f"w{i}", "model": "llama-3.1-8b", "mode": "lora", "batch": 1 + i % 4} for i in range(n)], f)
        files[n] = path
    failures = 0
    for fmt in ("json", "table", "csv", "markdown"):
        common = ["check", "--gpu", "h100-sxm-80gb", "--gpu", "a100-sxm-80gb", "--format", fmt]
        code_small, small = peak_mb([binary] + common + ["--workload", files[2000]])
        code_big, big = peak_mb([binary] + common + ["--workload", files[40000]])
        text_mb = os.path.getsize(files[40000]) / 2**20
        ok = code_small == code_big == 0 and big - small < 8 + text_mb
        print(f"{fmt}: 2,000 workloads {small:.1f} MB, 40,000 workloads {big:.1f} MB (file {text_mb:.1f} MB): {'ok' if ok else 'FAIL'}")
        failures += 0 if ok else 1
    sys.exit(1 if failures else 0)
