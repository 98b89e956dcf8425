#!/usr/bin/env python3
"""Checks real outputs of every --format json command, the bundled catalogue and the workload fixtures
against the JSON Schemas in data/schema/. Usage: validate_schemas.py BINARY SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("validate_schemas: python3-jsonschema is missing (apt-get install python3-jsonschema)", file=sys.stderr)
    sys.exit(1)

binary, src = sys.argv[1], sys.argv[2]
schema_dir = os.path.join(src, "data", "schema")
fixtures = os.path.join(src, "tests", "fixtures")


def schema(name):
    with open(os.path.join(schema_dir, name)) as handle:
        return json.load(handle)


def run(*args, expect=(0,)):
    proc = subprocess.run([binary, *args, "--format", "json"], capture_output=True, text=True, timeout=60)
    if proc.returncode not in expect:
        raise SystemExit(f"{' '.join(args)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


CASES = [
    ("rank.schema.json", ["--model", "7B", "--precision", "bf16", "--mode", "finetune"]),
    ("rank.schema.json", ["--model", "llama-3.1-8b", "--mode", "lora", "--tokens", "100M"]),
    ("rank.schema.json", ["--model", "llama-3.1-8b", "--mode", "inference", "--requests", "1M", "--input-tokens", "512", "--output-tokens", "256"]),
    ("rank.schema.json", ["--model", "mixtral-8x7b", "--mode", "inference", "--engine", "vllm", "--seq-len", "8192"]),
    ("rank.schema.json", ["--model", "gpt2", "--mode", "train", "--tokens", "5B", "--catalog", os.path.join(fixtures, "catalog_two_gpus.json"), "--deadline", "1m"]),
    ("estimate.schema.json", ["estimate", "--model", "llama-2-7b", "--seq-len", "4096"]),
    ("estimate.schema.json", ["estimate", "--model", "llama-3.1-70b", "--mode", "qlora", "--gpu", "a100-sxm-80gb", "--tokens", "10M"]),
    ("estimate.schema.json", ["estimate", "--model", "mixtral-8x7b", "--mode", "inference", "--engine", "vllm", "--gpus", "2", "--tp", "2", "--gpu", "h100-sxm-80gb", "--seq-len", "32768"]),
    ("rank.schema.json", ["--model", "yolov8-m", "--mode", "inference", "--precision", "fp16", "--streams", "16", "--fps", "30", "--resolution", "1080p"]),
    ("rank.schema.json", ["--model", "resnet-50", "--mode", "train", "--precision", "bf16", "--batch", "256", "--image-size", "224"]),
    ("estimate.schema.json", ["estimate", "--model", "mask-rcnn-r50-fpn", "--mode", "train", "--precision", "fp32", "--batch", "2", "--image-size", "1333x800", "--framework", "detectron2", "--gpu", "v100-sxm2-32gb"]),
    ("check.schema.json", ["check", "--workload", os.path.join(fixtures, "workloads", "fits.json"), "--gpu", "h100-sxm-80gb", "--min-headroom", "10"]),
    ("fit.schema.json", ["fit", "--gpu", "rtx-4090-24gb", "--model", "llama-3.1-8b", "--mode", "qlora", "--seq-len", "2048"]),
    ("gpus.schema.json", ["gpus"]),
    ("gpus.schema.json", ["gpus", "h100-sxm-80gb"]),
    ("gpus.schema.json", ["gpus", "mi300x-192gb"]),
    ("rank.schema.json", ["--model", "flux-1-dev", "--mode", "inference", "--image-size", "1024", "--images", "1000"]),
    ("estimate.schema.json", ["estimate", "--model", "flux-1-dev", "--mode", "inference", "--image-size", "1024", "--gpu", "rtx-4090-24gb"]),
    ("estimate.schema.json", ["estimate", "--model", "llama-3.1-70b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--offload", "layers",
                              "--gpu", "rtx-4090-24gb"]),
    ("rank.schema.json", ["--model", "llama-3.1-70b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--max-gpus", "1",
                          "--only", "rtx-4090-24gb", "--only", "rtx-3090-24gb"]),
    ("rank.schema.json", ["--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m", "--max-gpus", "4",
                          "--only", "rtx-3090-24gb", "--rank-by", "time"]),
    ("estimate.schema.json", ["estimate", "--model", "llama-3-70b", "--mode", "train", "--framework", "megatron", "--precision", "fp8", "--seq-len", "8192",
                              "--gpu", "gb200-nvl72-186gb", "--gpus", "64", "--batch", "2", "--sharding", "zero3", "--offload", "activations", "--hints"]),
    ("rank.schema.json", ["--model", "llama-3-70b", "--mode", "train", "--framework", "megatron", "--precision", "fp8", "--seq-len", "8192",
                          "--only", "gb200-nvl72-186gb", "--gpus", "64", "--global-batch", "256", "--rank-by", "time"]),
    ("calibrate.schema.json", ["calibrate", "PROBE_RESULT"]),
    ("models.schema.json", ["models"]),
    ("sweep.schema.json", ["sweep", "--model", "llama-3.1-8b", "--mode", "lora", "--vary", "seq-len", "--from", "1024", "--to", "32768", "--gpu", "rtx-4090-24gb", "--gpu", "h100-sxm-80gb"]),
]

# A probe's result file, as `python probe.py` writes it, for calibrate.
probe_result = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
json.dump({"schema": "gpuadvise-probe/1", "estimate_args": "--batch 2 --mode lora --model llama-3.1-8b --seq-len 2048",
           "gpu_name": "NVIDIA H100 80GB HBM3", "measured": {"max_memory_allocated_bytes": 3.0e10, "max_memory_reserved_bytes": 3.2e10,
           "device_used_bytes": 3.4e10, "step_seconds": 0.5, "unit": "tokens", "per_second": 8000}}, probe_result)
probe_result.close()

failures = 0
# Every schema has a command it checks (workload.schema.json checks the fixtures below).
for name in sorted(os.listdir(schema_dir)):
    if name != "workload.schema.json" and not any(case[0] == name for case in CASES):
        failures += 1
        print(f"FAIL {name}: no command's output is checked against it")
for name, args in CASES:
    args = [probe_result.name if a == "PROBE_RESULT" else a for a in args]
    doc = run(*args, expect=(0, 1))
    try:
        jsonschema.validate(doc, schema(name), cls=jsonschema.Draft202012Validator)
    except jsonschema.ValidationError as exc:
        failures += 1
        print(f"FAIL {name} for {' '.join(args)}: {exc.message} at {list(exc.absolute_path)}")
with open(os.path.join(src, "data", "gpus.json")) as handle:
    try:
        jsonschema.validate(json.load(handle), schema("gpus.schema.json"), cls=jsonschema.Draft202012Validator)
    except jsonschema.ValidationError as exc:
        failures += 1
        print(f"FAIL data/gpus.json: {exc.message} at {list(exc.absolute_path)}")
for name in sorted(os.listdir(os.path.join(fixtures, "workloads"))):
    with open(os.path.join(fixtures, "workloads", name)) as handle:
        doc = json.load(handle)
    valid = jsonschema.Draft202012Validator(schema("workload.schema.json")).is_valid(doc)
    if valid != (not name.startswith("bad")):
        failures += 1
        print(f"FAIL workload fixture {name}: schema says valid={valid}")
os.unlink(probe_result.name)
checked = len(CASES) + 1 + len(os.listdir(os.path.join(fixtures, "workloads")))
print(f"{checked - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
