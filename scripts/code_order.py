#!/usr/bin/env python3
"""Writes cmake/code-order.txt: the functions of gpuadvise that common commands execute, in the order callgrind
first lists them, one mangled name a line (docs/performance.md, "Code laid out in the order a run uses it").

lld places these functions together at the start of the code (--symbol-ordering-file), so a run touches fewer code
pages. Names the code no longer has are skipped by the linker; functions added since are placed after the listed
ones. Regenerate after large changes: scripts/code_order.py BUILD_DIR (valgrind needed).
"""
import os
import re
import subprocess
import sys
import tempfile

COMMANDS = [
    ["--model", "7B", "--precision", "bf16", "--mode", "finetune"],
    ["--model", "7B", "--precision", "bf16", "--mode", "finetune", "--format", "json"],
    ["estimate", "--model", "7B", "--gpu", "h100-sxm-80gb"],
    ["--model", "llama-3.1-8b", "--mode", "inference", "--framework", "vllm", "--requests", "1e5", "--output-tokens", "200"],
    ["--version"],
    ["--model", "sdxl-base-1.0", "--mode", "inference"],
]


def functions_run(binary: str, args: list, out: str) -> list:
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", binary, *args],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    objects, names, found = {}, {}, []
    current = None
    with open(out) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    objects[m.group(2)] = m.group(3)
                if m.group(1) == "ob":
                    current = objects.get(m.group(2))
                continue
            m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                name = names.get(m.group(2))
                if m.group(1) == "fn" and current and os.path.realpath(current) == os.path.realpath(binary) and name and not name.startswith("0x"):
                    found.append(name)
    return found


def main() -> int:
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    binary = os.path.join(build, "gpuadvise")
    order, seen = [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for k, args in enumerate(COMMANDS):
            for name in functions_run(binary, args, os.path.join(tmp, f"run{k}.out")):
                if name not in seen:
                    seen.add(name)
                    order.append(name)
    target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cmake", "code-order.txt")
    with open(target, "w") as f:
        f.write("\n".join(order) + "\n")
    print(f"code_order: {len(order)} functions in cmake/code-order.txt")
    return 0 if order else 1


if __name__ == "__main__":
    sys.exit(main())
