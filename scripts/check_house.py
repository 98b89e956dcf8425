#!/usr/bin/env python3
"""The house rules of ARCHITECTURE.md that a machine can check: no source file over 500 lines and no function
over 100 (functions and lambdas as universal-ctags finds them, from their first line to their last), and no test name
with a semicolon (CMake's list separator: ctest's discovery splits such a test in two, each failing).
Usage: scripts/check_house.py [REPO_ROOT]; exit 1 naming each breach, or when ctags is missing."""
import pathlib
import shutil
import subprocess
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 100

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
files = sorted(p for d in ("src", "include", "tests") for p in (root / d).rglob("*") if p.suffix in (".cpp", ".hpp"))
if not files:
    sys.exit(f"check_house: no sources under {root}")
breaches = []
for p in files:
    n = len(p.read_text(encoding="utf-8").splitlines())
    if n > MAX_FILE_LINES:
        breaches.append(f"{p.relative_to(root)}: {n} lines (at most {MAX_FILE_LINES})")
    for i, text in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if text.startswith("TEST_CASE(\"") and ";" in text.split("\"")[1]:
            breaches.append(f"{p.relative_to(root)}:{i}: a test name with ';' (ctest splits it in two)")
ctags = shutil.which("ctags-universal") or shutil.which("ctags")
if not ctags:
    sys.exit("check_house: universal-ctags is missing (scripts/setup.sh installs it)")
out = subprocess.run([ctags, "--fields=+ne", "--kinds-c++=f", "--language-force=c++", "-o", "-", *map(str, files)],
                     check=True, capture_output=True, text=True).stdout
functions = 0
for line in out.splitlines():
    cols = line.split("\t")
    fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
    if "line" not in fields or "end" not in fields:
        continue
    functions += 1
    length = int(fields["end"]) - int(fields["line"]) + 1
    if length > MAX_FUNCTION_LINES:
        breaches.append(f"{pathlib.Path(cols[1]).relative_to(root)}:{fields['line']}: {cols[0]} is {length} lines (at most {MAX_FUNCTION_LINES})")
if functions < 100:
    sys.exit(f"check_house: ctags found only {functions} functions with their extent; is it universal-ctags?")
for b in breaches:
    print(b)
print(f"check_house: {len(files)} files, {functions} functions, {len(breaches)} over the limits")
sys.exit(1 if breaches else 0)
