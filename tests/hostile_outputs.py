#!/usr/bin/env python3
"""Hostile names through the real binary (docs/testing.md, "Security"): the probe script generated from them
compiles and holds the same statements as a benign one (the names only inside string literals); every launch
hint splits with shell rules into the same words whatever the name; every SkyPilot task parses as YAML and its
run block is the hint. Usage: hostile_outputs.py PATH/TO/gpuadvise"""
import ast, json, os, shlex, subprocess, sys, tempfile

import yaml

BIN = sys.argv[1]
HOSTILE = ["nightly\nimport os; os.system(\"id > pwned\")\n#", "x'; rm -rf / #", "$(touch pwned)`id`", "a\x1b[2J\r\u202eb", "\"\"\"; import os; \"\"\""]
failures = []


def run(args, stdin=None):
    return subprocess.run([BIN] + args, input=stdin, capture_output=True, text=True)


def statements(src):
    """The script's statements with every string constant blanked: what it would run."""
    tree = ast.parse(src)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree)


with tempfile.TemporaryDirectory() as tmp:
    benign_path = os.path.join(tmp, "benign.json")
    json.dump({"name": "benign", "model": "llama-3.1-8b", "mode": "lora"}, open(benign_path, "w"))
    benign = statements(run(["probe", "--workload", benign_path]).stdout)
    for i, name in enumerate(HOSTILE):
        path = os.path.join(tmp, f"w{i}.json")
        json.dump({"name": name, "model": "llama-3.1-8b", "mode": "lora"}, open(path, "w"))
        r = run(["probe", "--workload", path])
        if r.returncode != 0:
            failures.append(f"probe {name!r}: exit {r.returncode}: {r.stderr}")
            continue
        compile(r.stdout, "probe.py", "exec")
        if statements(r.stdout) != benign:
            failures.append(f"probe {name!r}: the script's statements differ from a benign name's")
        # The literal carries the name back exactly: calibrate reruns these words.
        args = ast.literal_eval(r.stdout.split("ESTIMATE_ARGS = ", 1)[1].split("\n", 1)[0])
        words = shlex.split(args)
        if words[words.index("--name") + 1] != name:
            failures.append(f"probe {name!r}: ESTIMATE_ARGS does not split back into the name")

    # Launch hints from a model folder whose path is hostile: one shell word, the same words as a plain path.
    for i, name in enumerate(["plain", "it's $(id) `x`; #"]):
        folder = os.path.join(tmp, f"m{i} {name}")
        os.makedirs(folder)
        json.dump({"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
                   "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192}, open(os.path.join(folder, "config.json"), "w"))
        for mode in ["inference", "lora"]:
            r = run(["--model", os.path.join(folder, "config.json"), "--mode", mode, "--format", "json"])
            if r.returncode != 0:
                failures.append(f"hints {name!r} {mode}: exit {r.returncode}: {r.stderr}")
                continue
            for row in json.loads(r.stdout)["ranking"]:
                h = row.get("launch_hints") or {}
                for key in ["vllm", "torchrun", "hf_trainer_args"]:
                    if h.get(key):
                        words = shlex.split(h[key], comments=True)
                        if key == "vllm" and words[2] != folder:
                            failures.append(f"hints {name!r}: vllm serves {words[2]!r}, not the folder")
                        if shlex.split(h[key], comments=True) != shlex.split(h[key]):
                            failures.append(f"hints {name!r}: {key} holds a shell comment: {h[key]}")
                if h.get("skypilot_task"):
                    task = yaml.safe_load(h["skypilot_task"])
                    if set(task) - {"resources", "num_nodes", "run"}:
                        failures.append(f"hints {name!r}: the SkyPilot task has keys {sorted(task)}")
                    if task["run"].strip() != (h.get("vllm") or h.get("torchrun")):
                        failures.append(f"hints {name!r}: the SkyPilot run block is not the hint")

for f in failures:
    print("FAIL", f)
print(f"hostile outputs: {len(HOSTILE)} probe names, 2 model folders; {len(failures)} failures")
sys.exit(1 if failures else 0)
