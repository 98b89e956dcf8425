#!/usr/bin/env python3
"""Launch hints run as written (method.md §11): every command the hints print splits as a shell splits it, with no
comment swallowing a flag, starts with an engine or launcher the table knows, and uses only the options that
engine documents (tests/data/engine_flags.json, each with its source), each with a value of the kind it takes.

Runs the ranking and `estimate` over a matrix of serving and training workloads (every engine, tensor, pipeline,
expert and attention-data parallel layouts, several nodes, quantised weights, sharding, offload, vision) and
checks each hint of each row. Usage: hint_flags.py PATH/TO/gpuadvise [repo root]"""
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

BIN = sys.argv[1]
ROOT = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parent.parent
TABLE = json.loads((ROOT / "tests" / "data" / "engine_flags.json").read_text())
SHELL_VAR = re.compile(r"^\$[A-Z_][A-Z0-9_]*$")


def value_ok(kind, value):
    """Whether `value` is one of `kind`: a type name, a list of choices, or {"words": choices} (space-separated)."""
    if isinstance(kind, list):
        return value in kind
    if isinstance(kind, dict):
        return bool(value.split()) and all(word in kind["words"] for word in value.split())
    if kind == "int":
        return bool(re.fullmatch(r"[1-9][0-9]*", value)) or bool(SHELL_VAR.match(value))
    if kind == "number_list":
        return bool(re.fullmatch(r"[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)+", value))
    if kind == "fraction":
        try:
            return 0.0 < float(value) <= 1.0
        except ValueError:
            return False
    if kind == "hostport":
        host, _, port = value.rpartition(":")
        return bool(host) and (bool(SHELL_VAR.match(host)) or bool(re.fullmatch(r"[A-Za-z0-9.-]+", host))) and port.isdigit()
    if kind == "bool":
        return value in ("true", "false", "True", "False")
    if kind in ("path", "text"):
        return bool(value) and not value.startswith("-")
    raise ValueError(f"unknown kind {kind!r} in engine_flags.json")


def check_flags(words, flags, where, failures):
    """Walks `words` (options and their values only); returns the positional words left."""
    positional = []
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("-"):
            positional.append(word)
            i += 1
            continue
        name = word.split("=", 1)[0]
        if name not in flags:
            failures.append(f"{where}: {name} is not an option its engine documents")
            i += 1
            continue
        kind = flags[name]
        if kind == "switch":
            if "=" in word:
                failures.append(f"{where}: {name} is a switch and takes no value")
            i += 1
            continue
        if isinstance(kind, dict) and "nargs" in kind:
            # argparse nargs='+': one or more values, up to the next option.
            values = []
            i += 1
            while i < len(words) and not words[i].startswith("-"):
                values.append(words[i])
                i += 1
            if not values or any(v not in kind["nargs"] for v in values):
                failures.append(f"{where}: {name} {' '.join(values)!r} is not a list of {kind['nargs']}")
            continue
        if "=" in word:
            value = word.split("=", 1)[1]
            i += 1
        else:
            value = words[i + 1] if i + 1 < len(words) else ""
            i += 2
        if not value_ok(kind, value):
            failures.append(f"{where}: {name} {value!r} is not a valid value ({kind})")
    return positional


def engine_of(words):
    best = None
    for name, engine in TABLE["engines"].items():
        cmd = engine["command"]
        if words[: len(cmd)] == cmd and (best is None or len(cmd) > len(TABLE["engines"][best]["command"])):
            best = name
    return best


def check_command(text, where, failures):
    try:
        words = shlex.split(text)
    except ValueError as e:
        failures.append(f"{where}: does not split as a shell splits it ({e}): {text}")
        return
    if shlex.split(text, comments=True) != words:
        failures.append(f"{where}: holds a shell comment, which would swallow what follows: {text}")
        return
    name = engine_of(words)
    if name is None:
        failures.append(f"{where}: starts with no engine or launcher the table knows: {text}")
        return
    engine = TABLE["engines"][name]
    rest = words[len(engine["command"]) :]
    if engine.get("script"):
        # The launcher's own options, the script, then the script's (Hugging Face TrainingArguments).
        at = next((k for k, word in enumerate(rest) if word.endswith(".py")), None)
        if at is None:
            failures.append(f"{where}: {name} runs no script: {text}")
            return
        check_flags(rest[:at], engine["flags"], f"{where} ({name})", failures)
        # Megatron-LM's training script takes Megatron's options; any other script, Hugging Face's TrainingArguments.
        megatron = rest[at] == "pretrain_gpt.py"
        flags = TABLE["megatron"]["flags"] if megatron else TABLE["script_args"]["flags"]
        extra = check_flags(rest[at + 1 :], flags, f"{where} (script arguments)", failures)
        if extra:
            failures.append(f"{where}: stray words after the script: {extra}")
        return
    positional = check_flags(rest, engine["flags"], f"{where} ({name})", failures)
    if len(positional) != engine["positional"]:
        failures.append(f"{where}: {name} takes {engine['positional']} positional argument(s), the hint gives {positional}")


def check_hints(hints, where, failures, counts):
    for key in ("vllm", "server", "torchrun"):
        if isinstance(hints.get(key), str):
            counts[key] = counts.get(key, 0) + 1
            if " pretrain_gpt.py" in hints[key]:
                counts["megatron"] = counts.get("megatron", 0) + 1
            check_command(hints[key], f"{where} {key}", failures)
    if isinstance(hints.get("hf_trainer_args"), str):
        counts["hf_trainer_args"] = counts.get("hf_trainer_args", 0) + 1
        words = shlex.split(hints["hf_trainer_args"])
        extra = check_flags(words, TABLE["script_args"]["flags"], f"{where} hf_trainer_args", failures)
        if extra:
            failures.append(f"{where} hf_trainer_args: stray words {extra}")
    for note in hints.get("notes", []):
        marker = "needs Megatron-LM or torchtitan: "
        if marker in note:
            counts["megatron"] = counts.get("megatron", 0) + 1
            extra = check_flags(shlex.split(note.split(marker, 1)[1]), TABLE["megatron"]["flags"], f"{where} Megatron note", failures)
            if extra:
                failures.append(f"{where} Megatron note: stray words {extra}")


def run(args):
    r = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise SystemExit(f"hint_flags: {' '.join(args)} exited {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def self_test():
    """The checker must catch what it is for: each of these hints is wrong in one way."""
    wrong = [
        "vllm serve org/model --tensor-parallel 2",  # not a documented option
        "vllm serve org/model --tensor-parallel-size two",  # not an int
        "vllm serve org/model --gpu-memory-utilization 1.5",  # not a fraction
        "vllm serve org/model --max-model-len 4096  # --max-num-seqs 64",  # a comment swallows a flag
        "vllm serve --max-model-len 4096",  # no model
        "llama-server -m model.gguf --split-mode column",  # not a documented choice
        "llama-server -m model.gguf --split-mode layer --tensor-split 3:1",  # not comma-separated proportions
        "python -m sglang.launch_server --model-path org/model --dist-init-addr head",  # no port
        "torchrun --nproc_per_node 8 train.py --optim adamw_fast",  # not an HF optimizer
        "torchrun --nproc_per_node 8 --deepspeed ds.json",  # no script
        "text-generation-launcher --model-id org/model",  # an engine the table does not know
    ]
    missed = []
    for text in wrong:
        found = []
        check_command(text, "self-test", found)
        if not found:
            missed.append(text)
    return [f"self-test: the check passed a wrong hint: {text}" for text in missed]


def main():
    failures, counts, commands = self_test(), {}, 0
    serving = []
    for engine in ["vllm", "sglang", "trtllm", "llamacpp", "exllamav2"]:
        for model, precision in [("llama-3.1-8b", None), ("llama-3.1-70b", "fp8"), ("llama-3.1-70b", "q4_k_m"), ("deepseek-v3", "fp8"),
                                 ("llama-3.1-405b", "fp8"), ("qwen3-30b-a3b", None), ("gpt-oss-120b", "fp4")]:
            args = ["--model", model, "--mode", "inference", "--framework", engine]
            if precision:
                args += ["--precision", precision]
            serving.append(args)
            serving.append(args + ["--requests", "100000", "--input-tokens", "1000", "--output-tokens", "200", "--kv-precision", "fp8"])
    serving.append(["--model", "llama-3.1-70b", "--mode", "inference", "--framework", "vllm", "--allow-quantization", "--gpu-memory-utilization", "0.85"])
    serving.append(["--model", "llama-3.1-70b", "--mode", "inference", "--framework", "sglang", "--gpu-memory-utilization", "0.8"])
    # llama.cpp on one card: layer offload (-ngl) for a dense model, expert offload (--n-cpu-moe) for a mixture of experts.
    for model, precision in [("llama-3.1-70b", "q4_k_m"), ("gpt-oss-120b", None), ("qwen3-30b-a3b", "q8_0")]:
        serving.append(["--model", model, "--mode", "inference", "--framework", "llamacpp", "--max-gpus", "1"] + (["--precision", precision] if precision else []))
    training = []
    for framework in ["hf", "megatron", "torchtitan", "torchtune"]:
        for mode in ["finetune", "lora", "qlora", "train"]:
            for model in ["llama-3.1-8b", "llama-3.1-70b", "qwen3-30b-a3b"]:
                training.append(["--model", model, "--mode", mode, "--framework", framework, "--tokens", "1B"])
    training.append(["--model", "7B", "--precision", "bf16", "--mode", "finetune"])
    training.append(["--model", "7B", "--precision", "fp16", "--mode", "finetune", "--only", "v100-sxm2-32gb", "--global-batch", "1"])
    training.append(["--model", "resnet-50", "--mode", "train", "--precision", "fp16", "--optimizer", "sgd-momentum", "--images", "1.28M", "--epochs", "90"])
    training.append(["--model", "resnet-50", "--mode", "inference", "--batch", "64"])
    offloads = set()
    for args in serving + training:
        for row in run(args).get("ranking", []):
            check_hints(row.get("launch_hints") or {}, f"[{' '.join(args)}] {row['gpu']}", failures, counts)
            commands += 1
            offloads.add((row.get("plan") or {}).get("offload"))
    # Layouts given to estimate: expert and attention-data parallel, pipelines over nodes.
    for engine in ["vllm", "sglang", "trtllm"]:
        for layout in [["--gpus", "8", "--tp", "8", "--ep", "8"], ["--gpus", "8", "--tp", "8", "--ep", "8", "--attention-dp"],
                       ["--gpus", "16", "--tp", "8", "--pp", "2", "--nodes", "2"], ["--gpus", "32", "--nodes", "4", "--ep", "32"]]:
            args = ["estimate", "--model", "deepseek-v3", "--mode", "inference", "--precision", "fp8", "--framework", engine, "--gpu", "h200-sxm-141gb", *layout]
            check_hints(run(args).get("launch_hints") or {}, f"[{' '.join(args)}]", failures, counts)
            commands += 1
    for layout in [["--gpus", "16", "--tp", "4", "--pp", "2", "--virtual-stages", "2", "--cp", "2"], ["--gpus", "8", "--sharding", "zero3"],
                   ["--gpus", "16", "--nodes", "2", "--tp", "4", "--pp", "2", "--sharding", "zero1", "--offload", "optimizer", "--gradient-checkpointing"],
                   ["--gpus", "1", "--offload", "optimizer"]]:
        args = ["estimate", "--model", "llama-3.1-70b" if "--tp" in layout else "llama-3.1-8b", "--mode", "finetune", "--framework",
                "megatron" if "--tp" in layout else "hf", "--gpu", "h100-sxm-80gb", *layout]
        check_hints(run(args).get("launch_hints") or {}, f"[{' '.join(args)}]", failures, counts)
        commands += 1
    # A MoE under Megatron with its all-to-alls overlapped and an uneven pipeline split (94 layers over 8 stages): the
    # dispatcher, the overlap and the layout string must all be seen.
    args = ["estimate", "--model", "qwen3-235b-a22b", "--mode", "train", "--framework", "megatron", "--gpu", "h100-sxm-80gb", "--gpus", "256",
            "--tp", "2", "--pp", "8", "--virtual-stages", "4", "--ep", "32", "--global-batch", "2048", "--ep-overlap"]
    moe = run(args).get("launch_hints") or {}
    check_hints(moe, f"[{' '.join(args)}]", failures, counts)
    commands += 1
    for flag in ("--overlap-moe-expert-parallel-comm", "--moe-token-dispatcher-type", "--pipeline-model-parallel-layout"):
        if flag not in (moe.get("torchrun") or ""):
            failures.append(f"[{' '.join(args)}]: no {flag} in the Megatron launch")
    # MLA under Megatron's selective recompute: the list flag naming its up-projections must be seen and checked.
    args = ["estimate", "--model", "deepseek-v3", "--mode", "train", "--framework", "megatron", "--precision", "fp8", "--gpu", "h100-sxm-80gb",
            "--gpus", "1024", "--tp", "2", "--pp", "8", "--virtual-stages", "4", "--ep", "64", "--sharding", "zero1", "--gradient-checkpointing",
            "selective", "--global-batch", "8192"]
    mla = run(args).get("launch_hints") or {}
    check_hints(mla, f"[{' '.join(args)}]", failures, counts)
    commands += 1
    if "--recompute-modules core_attn mla_up_proj" not in (mla.get("torchrun") or ""):
        failures.append(f"[{' '.join(args)}]: no --recompute-modules naming mla_up_proj in the Megatron launch")
    # llama.cpp's expert offload over several GPUs: the layer split balanced by bytes (--tensor-split) must be seen.
    args = ["estimate", "--model", "qwen3-235b-a22b", "--mode", "inference", "--framework", "llamacpp", "--precision", "q4_k_m",
            "--gpu", "rtx-3090-24gb", "--gpus", "4", "--offload", "experts"]
    split = run(args).get("launch_hints") or {}
    check_hints(split, f"[{' '.join(args)}]", failures, counts)
    commands += 1
    if "--tensor-split" not in (split.get("server") or ""):
        failures.append(f"[{' '.join(args)}]: no --tensor-split in the llama-server hint of an expert offload over 4 GPUs")
    # Both of llama.cpp's offloads must have been planned, or their flags went unchecked.
    for kind in ("layers", "experts"):
        if kind not in offloads:
            failures.append(f"no plan with --offload {kind} in the matrix: its llama-server flags were not checked")
    # Each kind of hint must have been seen, or the check proved nothing about it.
    for key in ("vllm", "server", "torchrun", "hf_trainer_args", "megatron"):
        if not counts.get(key):
            failures.append(f"no {key} hint was produced by the matrix: the check of that kind matched nothing")
    for f in failures[:40]:
        print("FAIL", f)
    print(f"hint_flags: {commands} rows and estimates, {sum(counts.values())} hints checked ({counts}), {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
