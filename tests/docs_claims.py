#!/usr/bin/env python3
"""Docs that cannot drift from the tool (docs/testing.md, "Docs"). Usage: docs_claims.py PATH/TO/gpuadvise ROOT [--update]

1. Every gpuadvise command in README.md and docs/*.md (shell blocks, and inline `gpuadvise ...` spans) runs
   with the bundled catalogue, an empty defaults file and the fixtures below, and exits 0.
2. Every block after a `<!-- gpuadvise-output: ARGS -->` marker is what `gpuadvise ARGS` prints (COLUMNS=100,
   no colour); --update rewrites those blocks from the tool.
3. Every number a claim section states (docs/advice.md's questions, the README's worked example) is printed by
   that section's command: a change to the model that moves a number fails here until the text is updated. A
   held-out comparison in prose, "E against M (±X %)" with M a fidelity case's measured figure, states the
   estimate and error the tool gives for that case now.
   A section lists what it works out by hand from method.md's formulas in a `<!-- by hand: ... -->` comment.
4. The README's accuracy figures are docs/accuracy.md's summary lines; docs/advice.md's question count is its own;
   the held-out figures a throughput band names are docs/accuracy.md's for that file.
"""
import json, os, re, shlex, subprocess, sys, tempfile
from decimal import Decimal, ROUND_HALF_UP

BIN, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
REAL_ROOT = ROOT
UPDATE = "--update" in sys.argv[3:]
DOCS = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
failures = []

# Files the documented commands name, in the shapes docs/cli.md gives them.
PLAN = {"name": "8b-lora", "model": "llama-3.1-8b", "mode": "lora", "precision": "bf16", "seq_len": 2048, "tokens": "10M",
        "gradient_checkpointing": True}
FIXTURES = {
    "plan.json": json.dumps(PLAN),
    "plans.json": json.dumps([PLAN, dict(PLAN, name="8b-qlora", mode="qlora")]),
    "plans/finetune.json": json.dumps([PLAN]),
    "config.json": json.dumps({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
                               "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                               "vocab_size": 128256, "max_position_embeddings": 131072}),
}


def environment(tmp):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    config = os.path.join(tmp, "defaults.json")
    with open(config, "w") as f:
        f.write("{}")
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir, exist_ok=True)
    if not os.path.exists(os.path.join(bindir, "gpuadvise")):
        os.symlink(BIN, os.path.join(bindir, "gpuadvise"))
    # `--gpu local` asks nvidia-smi for this machine's GPU: here a stand-in answers as an H100 would.
    smi = os.path.join(bindir, "nvidia-smi")
    with open(smi, "w") as f:
        f.write("#!/bin/sh\necho 'NVIDIA H100 80GB HBM3'\n")
    os.chmod(smi, 0o755)
    env.update(GPUADVISE_CONFIG=config, HOME=tmp, COLUMNS="100", NO_COLOR="1", LC_ALL="C.UTF-8",
               PATH=bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin"), XDG_CONFIG_HOME=os.path.join(tmp, "xdg"))
    env.pop("TERM", None)
    return env


def fenced_blocks(text):
    """(language, first line number, lines) of every fenced block."""
    blocks, lang, start, body = [], None, 0, None
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            if body is None:
                lang, start, body = line[3:].strip(), i, []
            else:
                blocks.append((lang, start, body))
                body = None
        elif body is not None:
            body.append(line)
    return blocks


def shell_commands(lines):
    """(words, index of its last line) of each command of a shell block, continuations joined, comments dropped."""
    out, pending = [], ""
    for i, line in enumerate(lines):
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        words = shlex.split(pending, comments=True) if pending.strip() else []
        pending = ""
        if words[:1] == ["$"]:
            words = words[1:]
        if words:
            out.append((words, i))
    return out


def inline_commands(text):
    """`gpuadvise ...` spans outside fenced blocks that are whole commands (no placeholder such as ID or N)."""
    prose = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    out = []
    for m in re.finditer(r"`(gpuadvise [^`]+)`", prose):
        words = shlex.split(m.group(1))
        if len(words) < 3 or any(re.fullmatch(r"[A-Z][A-Z_]*|\[.*|.*\.\.\.|PATH.*|FILE", w) for w in words[1:]):
            continue  # a command's name (`gpuadvise fit`) or a synopsis (`gpuadvise gpus ID`), not a command
        out.append((words, prose.count("\n", 0, m.start()) + 1))
    return out


SHELL = ("sh", "bash", "console", "shell")
EXIT = re.compile(r"#\s*exits? (\d)\b|<!--\s*exits? (\d)\s*-->")
# A stated number: not part of a word or a name (8B, H100, 4090s, 2026-08-08); a product's model number
# (RTX 4090, Llama 3.1, MI300X) is a name, not a claim.
NUMBER = re.compile(r"(?<![\w.\-/^§])\$?(\d[\d,]*(?:\.\d+)?)(?![\w\-/^]|\.\d)")
NAMES = re.compile(r"\b(?:RTX(?: PRO| A)?|Radeon(?: Pro)?|Llama|Gaudi|Qwen|Mixtral|DeepSeek|Ada|Jetson AGX|L40S|Stable Diffusion) ?[\d.]+|\b[2345]0[89]0\b|\b[AHB][12]00 \d+ ?GB|\b\d+ ?GB [AHB][12]00\b")
ACCURACY_CASES = ["../shared/fidelity/cases.jsonl", "../shared/fidelity/time-cases.jsonl"] + [
    f"tests/data/{n}.jsonl" for n in ("mmyolo_memory", "mmdet_memory", "mmseg_memory", "mmdet_time", "llm_time",
                                      "llm_finetune_time", "vision_time_heldout", "llm_small_time", "moe_train_time",
                                      "serving_time", "serving_fp4_time", "gaudi3_serving_time", "serving_engines_2025_time", "mlperf_inference_time", "gb200_train_time", "gb300_train_time", "diffusion_time", "serving_ep_time", "serving_trtllm_2026_time",
                                      "llamacpp_time", "dense_train_time")]


def run(words, env, cwd):
    return subprocess.run(words, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def documented_commands():
    """(doc, line, words, expected exit) of every command, in document order."""
    for doc in DOCS:
        text = open(os.path.join(ROOT, doc)).read()
        lines = text.splitlines()
        for lang, start, body in fenced_blocks(text):
            if lang in ("yaml", "yml"):  # a CI step: `- run: ./build/gpuadvise ...`
                body = [re.sub(r"^\s*- run: (?:\./build/)?(?=gpuadvise )", "", l) if "- run:" in l else l for l in body]
                body = [l if l.lstrip().startswith(("gpuadvise", "--")) else "" for l in body]
            if lang in SHELL + ("yaml", "yml"):
                for words, offset in shell_commands(body):
                    m = EXIT.search(body[offset])
                    yield doc, start + 1 + offset, words, int(m.group(1) or m.group(2)) if m else 0
        for words, line in inline_commands(text):
            m = EXIT.search(lines[line - 1].split("`" + shlex.join(words), 1)[-1]) if line else None
            yield doc, line, words, int(m.group(1) or m.group(2)) if m else 0


def sandbox_step(words, tmp):
    """The documented steps that are not gpuadvise: `python probe.py probe_result.json` runs on a GPU; here it
    writes the result file in the probe's schema for the estimate the generated script names."""
    if words[:2] == ["python", "probe.py"]:
        script = open(os.path.join(tmp, "probe.py")).read()
        args = re.search(r'^ESTIMATE_ARGS = "(.*)"$', script, re.M).group(1)
        with open(os.path.join(tmp, words[2]), "w") as f:
            json.dump({"schema": "gpuadvise-probe/1", "estimate_args": args, "gpu_name": "NVIDIA H100 80GB HBM3",
                       "measured": {"max_memory_allocated_bytes": 3.0e10, "max_memory_reserved_bytes": 3.2e10,
                                    "device_used_bytes": 3.4e10, "step_seconds": 0.5, "unit": "tokens", "per_second": 8000}}, f)
        return True
    return False


FILE_DEFINITION = re.compile(r"`([\w./-]+\.json)`:\n\n```json\n(.*?)^```", re.M | re.S)


def documented_files():
    """The files the docs define for their commands ("`plans/finetune.json`:" and its block)."""
    for doc in DOCS:
        for m in FILE_DEFINITION.finditer(open(os.path.join(ROOT, doc)).read()):
            yield m.group(1), m.group(2)


def check_commands(env, tmp):
    """Part 1: each documented command runs and exits as documented (a redirect's target lands in the sandbox)."""
    seen, count = set(), 0
    for doc, line, words, expected in documented_commands():
        if sandbox_step(words, tmp) or words[0] != "gpuadvise" or "manpage" in words or tuple(words) in seen:
            continue
        seen.add(tuple(words))
        argv, target = list(words), None
        if ">" in argv:
            i = argv.index(">")
            argv, target = argv[:i], argv[i + 1]
        r = run(argv, env, tmp)
        count += 1
        where = f"{doc}:{line}" if line else doc
        if r.returncode != expected:
            failures.append(f"{where}: `{shlex.join(words)}` exited {r.returncode}, the text says {expected}: {r.stderr.strip()[:300]}")
        elif target:
            with open(os.path.join(tmp, os.path.basename(target)), "w") as f:
                f.write(r.stdout)
    return count


OUTPUT = re.compile(r"^<!-- gpuadvise-output(?: exit (\d))?: (.*?) -->\n```(\w*)\n(.*?)^```\n", re.M | re.S)


def check_output_blocks(env, tmp):
    """Part 2: each marked block is the tool's output for its command; --update writes it."""
    count = 0
    for doc in DOCS:
        path = os.path.join(ROOT, doc)
        text = open(path).read()

        def regenerate(m):
            nonlocal count
            count += 1
            words = shlex.split(m.group(2))
            width = {}
            if words and words[0].startswith("COLUMNS="):  # the terminal width the block shows
                width = {"COLUMNS": words.pop(0).split("=", 1)[1]}
            r = run(["gpuadvise"] + words, dict(env, **width), tmp)
            out = r.stdout if r.stdout.endswith("\n") else r.stdout + "\n"
            if r.returncode != int(m.group(1) or 0):
                failures.append(f"{doc}: `gpuadvise {m.group(2)}` exited {r.returncode}: {r.stderr.strip()[:200]}")
            elif out != m.group(4) and not UPDATE:
                failures.append(f"{doc}: the block after `gpuadvise {m.group(2)}` is not what the tool prints now "
                                "(tests/docs_claims.py BIN . --update rewrites it)")
            return m.group(0)[:m.start(3) - m.start(0)] + f"{m.group(3)}\n{out}```\n"

        new = OUTPUT.sub(regenerate, text)
        if UPDATE and new != text:
            with open(path, "w") as f:
                f.write(new)
    return count


def decimals(token):
    return len(token.split(".")[1]) if "." in token else 0


def printed(number, tokens):
    """A stated number is printed when a printed token rounds (half up) to it at the number's precision."""
    places = Decimal(1).scaleb(-decimals(number))
    for t in tokens:
        if t == number or (decimals(t) >= decimals(number) and Decimal(t).quantize(places, ROUND_HALF_UP) == Decimal(number)):
            return True
    return False


def claim_sections():
    """(doc, title, text) of each section whose numbers come from its own command."""
    text = open(os.path.join(ROOT, "docs/advice.md")).read()
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        if re.match(r"\d+\. ", part):
            yield "docs/advice.md", part.splitlines()[0], part
    readme = open(os.path.join(ROOT, "README.md")).read()
    for part in re.split(r"^## ", readme, flags=re.M)[1:]:
        if part.startswith("Worked example"):
            yield "README.md", part.splitlines()[0], part


def prose(text):
    """The section without code (blocks and spans), comments or its heading: what it claims in words."""
    text = re.sub(r"```.*?```", "", text.split("\n", 1)[1], flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return re.sub(r"`[^`]*`", "", text)


def short_name(gpu_id):
    """rtx-pro-6000-blackwell-ws-96gb -> "rtx pro 6000": the words prose uses for a catalogue id."""
    words = []
    for w in gpu_id.split("-"):
        if re.fullmatch(r"sxm\d*|pcie|hgx|nvl\d*|\d+gb|blackwell|ws|se|ada", w):
            break
        words.append(w)
    return " ".join(words)


def check_claims(env, tmp):
    """Part 3: the numbers each section states are printed by its command; its answer names the top row."""
    count = 0
    for doc, title, text in claim_sections():
        commands = [w for w, _ in inline_commands(text)] + [
            w for lang, _, body in fenced_blocks(text) if lang in SHELL for w, _ in shell_commands(body)]
        printed_text = ""
        for words in commands:
            r = run(words + ["--wide"], env, tmp)
            printed_text += r.stdout + r.stderr
        # What the section's commands print, and the values they were given (a flag's 45 is the question's own).
        tokens = {t.replace(",", "") for t in NUMBER.findall(printed_text + " " + " ".join(w for c in commands for w in c))}
        by_hand = set()
        for m in re.finditer(r"<!-- by hand[^:]*: (.*?) -->", text, re.S):
            by_hand |= set(m.group(1).replace(",", "").split())
        words = prose(text)
        for n in (t.replace(",", "") for t in NUMBER.findall(NAMES.sub("", words))):
            count += 1
            if not printed(n, tokens) and n not in by_hand:
                failures.append(f"{doc} \"{title}\": {n} is not in what its command prints now")
        for n in by_hand:
            if n not in words.replace(",", ""):
                failures.append(f"{doc} \"{title}\": the by-hand list names {n}, which the text no longer states")
        top = re.search(r"^\s+1\s+(\S+)\s+yes\s", printed_text, re.M)
        answer = re.search(r"\*\*Answer\*\*:(.*?)(?:\n- |\Z)", words, re.S)
        if top and answer and short_name(top.group(1)) not in answer.group(1).lower().replace("-", " "):
            failures.append(f"{doc} \"{title}\": the answer does not name the top row, {top.group(1)}")
    return count


# The tool's throughput bands name the held-out rows behind them (rows, median, 90th percentile): the figures must
# be docs/accuracy.md's for that file, rounded to whole percents.
HELD_OUT = r"(\d+) held-out rows[^:]*: median (\d+) %, 90th percentile (\d+) %"
BAND_CLAIMS = [(["--model", "resnet-50", "--mode", "train", "--gpu", "rtx-3090-24gb"], "vision_time_heldout.jsonl", "vision (held out)", HELD_OUT),
               (["--model", "stable-diffusion-v1-4", "--mode", "inference", "--gpu", "a100-sxm-80gb"], "diffusion_time.jsonl", "diffusion (held out)",
                HELD_OUT),
               (["--model", "llama-3.1-8b", "--mode", "train", "--gpu", "gaudi3-128gb"], "gaudi3_serving_time.jsonl", "llm (held out)",
                r"(\d+) FP8 rows[^)]*\) within (\d+) % at the median, (\d+) % at the 90th percentile")]


def check_band_claims(acc):
    for args, section, group, pattern in BAND_CLAIMS:
        out = subprocess.run([BIN, "estimate", *args, "--format", "json"], capture_output=True, text=True)
        drivers = json.loads(out.stdout)["time"]["band"]["drivers"] if out.returncode == 0 else ""
        said = re.search(pattern, drivers)
        body = acc.split(f"## {section}\n", 1)[-1] if f"## {section}\n" in acc else ""
        line = re.search(re.escape(f"- {group}: ") + r"(\d+) cases, median \|error\| ([\d.]+)%, 90th percentile ([\d.]+)%", body)
        whole = lambda x: int(Decimal(x).quantize(Decimal(1), rounding=ROUND_HALF_UP))
        if not said or not line or (int(said.group(1)), int(said.group(2)), int(said.group(3))) != (int(line.group(1)), whole(line.group(2)), whole(line.group(3))):
            failures.append(f"estimate {' '.join(args)}: its band's held-out figures are not docs/accuracy.md's {section} ({group}) line")


def check_accuracy():
    """Part 4: docs/accuracy.md is what scripts/accuracy.py writes now (where ../shared holds the shared cases),
    and README.md quotes its summary."""
    acc = open(os.path.join(ROOT, "docs/accuracy.md")).read()
    # A drift copy holds the docs alone: it checks the README against the copy's accuracy.md, not the script.
    if os.path.exists(os.path.join(ROOT, ACCURACY_CASES[0])) and os.path.exists(os.path.join(ROOT, "scripts/accuracy.py")):
        args = [sys.executable, os.path.join(ROOT, "scripts/accuracy.py"), "--bin", BIN]
        for c in ACCURACY_CASES:
            args += ["--cases", os.path.join(ROOT, c)]
        fresh = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        if UPDATE:
            acc = fresh
            with open(os.path.join(ROOT, "docs/accuracy.md"), "w") as f:
                f.write(fresh)
        elif fresh != acc:
            failures.append("docs/accuracy.md is not what scripts/accuracy.py writes now (--update rewrites it)")
    elif ROOT == REAL_ROOT:
        print(f"note: {ACCURACY_CASES[0]} is absent: docs/accuracy.md kept as it is, README checked against it")
    summary = re.search(r"^## Summary\n\n(.*?)\n\n", acc, re.M | re.S).group(1)
    path = os.path.join(ROOT, "README.md")
    readme = open(path).read()
    region = re.compile(r"(<!-- docs/accuracy.md summary -->\n)(.*?)(<!-- end -->)", re.S)
    m = region.search(readme)
    if not m:
        failures.append("README.md: no <!-- docs/accuracy.md summary --> region")
    elif m.group(2) != summary + "\n":
        if UPDATE:
            with open(path, "w") as f:
                f.write(region.sub(lambda x: x.group(1) + summary + "\n" + x.group(3), readme))
        else:
            failures.append("README.md: the accuracy lines are not docs/accuracy.md's summary (--update copies them)")
    check_band_claims(acc)
    questions = len(re.findall(r"^## \d+\. ", open(os.path.join(ROOT, "docs/advice.md")).read(), re.M))
    stated = re.search(r"works through (\d+) questions", readme)
    if not stated or int(stated.group(1)) != questions:
        failures.append(f"README.md: docs/advice.md works through {questions} questions")


# Part 3 in prose: a held-out comparison ("4,737 tokens/s per GPU against 4,912 (−3.6 %)") whose measured
# figure is a case of the fidelity files must state the estimate, and the error where it gives one, that the tool
# gives for that case now: the figure a change to the model moves fails here until the text follows.
FIGURE = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
COMPARISON = re.compile(r"(?<![\w.,/−-])" + FIGURE + r"((?:\s+[^\d\s(),;:=×]+){0,6}?)\s+against\s+(?:the\s+)?" + FIGURE + r"(?![\d.]*\d)"
                        r"(?:\s*(?:measured\s*)?(?:\(|,\s*)([−+-]\d+(?:\.\d+)?)\s*%)?")


def held_out_cases():
    """(measured, case) of every case in the fidelity files that can run here."""
    cases = []
    files = ACCURACY_CASES + sorted("tests/data/" + f for f in os.listdir(os.path.join(REAL_ROOT, "tests/data")) if f.endswith(".jsonl"))
    for rel in dict.fromkeys(files):  # each file once (ACCURACY_CASES names most of tests/data)
        path = os.path.join(REAL_ROOT, rel)
        if not os.path.exists(path):
            continue
        models = os.path.join(os.path.dirname(path), "models")
        for line in open(path):
            if not line.strip():
                continue
            case = json.loads(line)
            if not isinstance(case.get("measured"), (int, float)) or not case.get("compare") or not case.get("args"):
                continue
            if any("{models}" in a for a in case["args"]) and not os.path.isdir(models):
                continue
            case["args"] = [a.replace("{models}", models) for a in case["args"]]
            cases.append((float(case["measured"]), case))
    return cases


def plain(printed):
    """A number as the docs write it (thousands commas, a typographic minus) as Python reads it."""
    return printed.replace(",", "").replace("−", "-")


def within_print(value, printed):
    """`value` rounds to `printed` (a number as the docs write it) at its decimals."""
    return abs(value - float(plain(printed))) <= 0.5 * 10 ** -decimals(plain(printed)) + 1e-9


def case_estimate(case, memo):
    key = json.dumps(case["args"])
    if key not in memo:
        r = subprocess.run([BIN, "estimate", *case["args"], "--format", "json"], capture_output=True, text=True)
        value = json.loads(r.stdout) if r.returncode == 0 else None
        for part in case["compare"].split("."):
            value = value.get(part) if isinstance(value, dict) else None
        memo[key] = value
    return memo[key]


def check_held_out_figures(cases):
    count, memo = 0, {}
    for doc in DOCS:
        text = open(os.path.join(ROOT, doc)).read()
        for m in COMPARISON.finditer(text):
            said, measured, error = m.group(1), m.group(3), m.group(4)
            # A comparison states its error, and the error is the two figures' (not a figure of another model).
            if error is None:
                continue
            e, mv = float(plain(said)), float(plain(measured))
            if mv <= 0:
                continue
            slop = 0.5 * 10 ** -decimals(plain(error)) + 50.0 * 10 ** -decimals(plain(said)) / mv + 0.05
            if abs(100.0 * (e / mv - 1.0) - float(plain(error))) > slop:
                continue
            matches = [c for v, c in cases if within_print(v, measured)]
            if not matches:
                continue
            count += 1
            ok = False
            for c in matches:
                est = case_estimate(c, memo)
                if isinstance(est, (int, float)) and within_print(est, said) and (
                        within_print(100.0 * (est / float(c["measured"]) - 1.0), error)):
                    ok = True
            if not ok:
                line = text[:m.start()].count("\n") + 1
                now = ", ".join(f"{c['id']} {case_estimate(c, memo)}" for c in matches[:3])
                failures.append(f"{doc}:{line}: held-out figure \"{' '.join(m.group(0).split())}\" is not the tool's now ({now})")
    return count


def check_all():
    """Every part over ROOT's docs; returns the failures."""
    del failures[:]
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in list(FIXTURES.items()) + list(documented_files()):
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(body)
        env = environment(tmp)
        n = check_commands(env, tmp)
        b = check_output_blocks(env, tmp)
        c = check_claims(env, tmp)
        c += check_held_out_figures(CASES)
        check_accuracy()
    return n, b, c, list(failures)


# The check must be able to fail: each drift below, made in a copy of the docs, has to be caught.
DRIFTS = [("README.md", "needs 15.0 hours and costs", "needs 15.9 hours and costs", "15.9 is not in what"),
          ("README.md", "  2  rtx-4090-24gb yes     1", "  2  rtx-4090-24gb yes     2", "is not what the tool prints now"),
          ("README.md", "gpuadvise gpus --vendor amd --sort memory", "gpuadvise gpus --vendor amd --sort memroy", "exited 2, the text says 0"),
          ("README.md", "- llm memory: ", "- llm memory:  ", "the accuracy lines are not"),
          ("docs/advice.md", "- **Answer**: four RTX A6000s", "- **Answer**: four H100s", "does not name the top row"),
          ("docs/accuracy.md", "- vision (held out): 48 cases", "- vision (held out): 47 cases", "its band's held-out figures"),
          ("docs/method.md", "7,121 against 7,280 (−2.2 %)", "7,255 against 7,280 (−0.3 %)", "held-out figure"),
]


def self_test():
    """Each drift in a copy of README.md and docs/ fails the check with its own message."""
    global ROOT
    real, problems = ROOT, []
    for doc, old, new, expected in DRIFTS:
        with tempfile.TemporaryDirectory() as copy:
            os.makedirs(os.path.join(copy, "docs"))
            for d in DOCS:
                text = open(os.path.join(real, d)).read()
                if d == doc:
                    if old not in text:
                        problems.append(f"self-test: {doc} no longer holds {old!r}; pick another drift")
                    text = text.replace(old, new, 1)
                with open(os.path.join(copy, d), "w") as f:
                    f.write(text)
            ROOT = copy
            found = check_all()[3]
            ROOT = real
            if not any(expected in f for f in found):
                problems.append(f"self-test: {doc} with {new!r} for {old!r} passed the check")
    return problems


CASES = held_out_cases()


def main():
    if UPDATE:
        check_all()
    n, b, c, found = check_all()
    print(f"{n} documented commands run, {b} output blocks compared, {c} stated numbers checked")
    found += self_test()
    print(f"{len(DRIFTS)} deliberate drifts in a copy of the docs checked")
    for f in found:
        print("FAIL", f)
    sys.exit(1 if found else 0)


main()
