#!/usr/bin/env python3
"""Builds data/gpus.json from the research notes (a gpus.json of raw findings, one entry per GPU, each
with its sources) plus the additions below, each with its own source. Run it again when the notes
change; review the diff. Usage: scripts/build_gpu_catalog.py RESEARCH_GPUS_JSON > data/gpus.json"""
import json
import sys

# What CUDA (nvidia-smi "memory.total") reports: the capacity that decides whether a job fits.
REPORTED_MIB = {
    "h100-sxm-80gb": (81559, "https://github.com/modal-labs/modal-client/pull/2797 (nvidia-smi totals)"),
    "a100-sxm-80gb": (81920, "https://github.com/modal-labs/modal-client/pull/2797 (nvidia-smi totals)"),
    "a100-sxm-40gb": (40960, "https://github.com/modal-labs/modal-client/pull/2797 (nvidia-smi totals)"),
    "a10-24gb": (23028, "https://github.com/modal-labs/modal-client/pull/2797 (nvidia-smi totals)"),
    "l40s-48gb": (46068, "https://github.com/modal-labs/modal-client/pull/2797; akash-network/provider-configs#99"),
    "l4-24gb": (23034, "https://github.com/modal-labs/modal-client/pull/2797 (nvidia-smi totals)"),
    "t4-16gb": (15360, "https://github.com/modal-labs/modal-client/pull/2797 (nvidia-smi totals)"),
    "rtx-4090-24gb": (24564, "nvidia-smi output in RLinf/RLinf#255 (24564MiB)"),
    "rtx-a6000-48gb": (49140, "gpuadvise fidelity contract (nvidia-smi total of an RTX A6000)"),
    "h200-sxm-141gb": (143771, "nvidia-smi total of an H200 (research notes, gpus.md)"),
    "v100-sxm2-16gb": (16160, "NVIDIA V100 datasheet notes: CUDA total about 16,160 MiB (research notes, gpus.md)"),
}

SEGMENTS = {
    "consumer desktop card": "consumer",
    "workstation card": "workstation",
    "server PCIe": "datacenter-pcie",
    "server SXM/OAM module": "datacenter-module",
}

# GPUs the fidelity cases use that the research table lacks (research notes, gpus.md last table).
EXTRA = [
    {
        "id": "v100-sxm2-16gb", "vendor": "NVIDIA", "name": "Tesla V100 SXM2 16GB", "architecture": "Volta (GV100)",
        "segment": "server SXM/OAM module", "form_factor": "SXM2", "memory_gb": 16, "memory_type": "HBM2",
        "memory_bandwidth_tbs": 0.9,
        "dense_tflops": {"fp32": 15.7, "tf32": None, "fp16": 125, "bf16": None, "fp8": None, "int8_tops": None, "fp4": None},
        "interconnect": "NVLink 2", "interconnect_bw_gbs": 300, "pcie_gen": 3, "tdp_w": 300,
        "cuda_compute_capability": "7.0", "rocm_gfx_target": None,
        "cloud_prices": [{"provider": "Lambda", "usd_per_gpu_hour": 0.55, "date_seen": "SkyPilot catalog commit 11580132 (8x V100 16GB $4.40)",
                          "source": "https://github.com/skypilot-org/skypilot-catalog (catalogs/v7/lambda/vms.csv)", "note": "INDICATIVE."}],
        "sources": {"specs": "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"},
        "uncertain_fields": [], "notes": "fp16 is the tensor-core rate; no bf16 on Volta.",
    },
    {
        "id": "v100-pcie-16gb", "vendor": "NVIDIA", "name": "Tesla V100 PCIe 16GB", "architecture": "Volta (GV100)",
        "segment": "server PCIe", "form_factor": "PCIe card", "memory_gb": 16, "memory_type": "HBM2",
        "memory_bandwidth_tbs": 0.9,
        "dense_tflops": {"fp32": 14, "tf32": None, "fp16": 112, "bf16": None, "fp8": None, "int8_tops": None, "fp4": None},
        "interconnect": "none", "interconnect_bw_gbs": 0, "pcie_gen": 3, "tdp_w": 250,
        "cuda_compute_capability": "7.0", "rocm_gfx_target": None, "cloud_prices": [],
        "sources": {"specs": "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"},
        "uncertain_fields": [], "notes": "fp16 is the tensor-core rate; no bf16 on Volta.",
    },
    {
        "id": "h100-sxm-96gb", "vendor": "NVIDIA", "name": "H100 SXM 96GB (HBM2e)", "architecture": "Hopper (GH100)",
        "segment": "server SXM/OAM module", "form_factor": "SXM5", "memory_gb": 96, "memory_type": "HBM2e",
        "memory_bandwidth_tbs": 2.4,
        "dense_tflops": {"fp32": 67, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4, "fp8": 1978.9, "int8_tops": 1978.9, "fp4": None},
        "interconnect": "NVLink 4 (NVSwitch on HGX)", "interconnect_bw_gbs": 900, "pcie_gen": 5, "tdp_w": 500,
        "cuda_compute_capability": "9.0", "rocm_gfx_target": None, "cloud_prices": [],
        "sources": {"specs": "https://github.com/pytorch/torchtitan/blob/main/docs/benchmarks/llama3_h100_202412_torchtitan.md ('96GB HBM2e with 2.4 TB/sec peak memory bandwidth ... default 500W power limit')",
                    "tflops": "H100 SXM compute (Hopper whitepaper), as the 80 GB part"},
        "uncertain_fields": ["dense_tflops (assumed equal to H100 SXM 80GB; at a 500 W limit sustained clocks are lower)"],
        "notes": "Rare 96 GB HBM2e variant; its only public benchmark ran at a 500 W power limit.",
    },
    {
        "id": "rtx-4070-ti-super-16gb", "vendor": "NVIDIA", "name": "GeForce RTX 4070 Ti SUPER", "architecture": "Ada Lovelace (AD103)",
        "segment": "consumer desktop card", "form_factor": "PCIe card", "memory_gb": 16, "memory_type": "GDDR6X",
        "memory_bandwidth_tbs": 0.672,
        "dense_tflops": {"fp32": None, "tf32": None, "fp16": 88, "bf16": 88, "fp8": None, "int8_tops": None, "fp4": None},
        "interconnect": "none (no NVLink)", "interconnect_bw_gbs": 0, "pcie_gen": 4, "tdp_w": 285,
        "cuda_compute_capability": "8.9", "rocm_gfx_target": None, "cloud_prices": [],
        "sources": {"specs": "AD103 specifications (66 SMs, 256-bit at 21 Gbps = 672 GB/s)",
                    "tflops": "derived: Ada per-SM tensor rate (RTX 4090 whitepaper figure / 128 SMs) x 66 SMs at 2.61 GHz"},
        "uncertain_fields": ["dense_tflops (derived, not read from a vendor table)"],
        "notes": "fp16/bf16 with fp32 accumulate.",
    },
]

EXTRA_PRICES = {
    "h200-sxm-141gb": [("Spheron", 4.54, "2026-03-17", "https://www.spheron.network/blog/nvidia-h200-vs-b200-vs-gb200"),
                       ("RunPod", 3.59, "undated", "https://deploybase.ai/articles/b200-vs-h200-vs-h100")],
    "b200-hgx-180gb": [("Spheron", 6.03, "2026-03-17", "https://www.spheron.network/blog/nvidia-h200-vs-b200-vs-gb200"),
                       ("RunPod", 5.98, "undated", "https://deploybase.ai/articles/b200-vs-h200-vs-h100")],
    "h100-sxm-80gb": [("RunPod (secure)", 2.69, "2026", "https://www.spheron.network/blog/runpod-h100-pricing-2026/"),
                      ("CoreWeave", 2.23, "2026", "https://gridstackhub.ai/learn/reserved-vs-spot-vs-on-demand-gpu")],
    "h100-pcie-80gb": [("RunPod (secure)", 2.79, "2026", "https://www.spheron.network/blog/runpod-h100-pricing-2026/")],
    "mi300x-192gb": [("TensorWave", 1.50, "2026-05-18", "https://www.cliffcenter.com/research/amd-inference-economics")],
    "mi325x-256gb": [("TensorWave", 1.95, "2026-05-18", "https://www.cliffcenter.com/research/amd-inference-economics")],
}

# NVDEC engines (NVIDIA Video Encode/Decode support matrix and the cards' datasheets), used by video
# workloads; a card not listed has an unknown count and the tool says so.
NVDEC = {"h100-sxm-80gb": 7, "h100-pcie-80gb": 7, "h100-nvl-94gb": 7, "h200-sxm-141gb": 7, "h200-nvl-141gb": 7,
         "h100-sxm-96gb": 7, "gh200-96gb": 7, "a100-sxm-40gb": 5, "a100-pcie-40gb": 5, "a100-sxm-80gb": 5,
         "a100-pcie-80gb": 5, "l4-24gb": 4, "l40s-48gb": 3, "a10-24gb": 2, "a10g-24gb": 2, "t4-16gb": 2,
         "rtx-4090-24gb": 1, "rtx-5090-32gb": 2, "rtx-6000-ada-48gb": 3, "rtx-a6000-48gb": 2,
         "rtx-pro-6000-blackwell-ws-96gb": 4, "rtx-pro-6000-blackwell-se-96gb": 4}
# Published whole-card decode figures (H.264 1080p30 streams), with their source.
DECODE_1080P30 = {"t4-16gb": (38, "https://www.nvidia.com/en-us/data-center/tesla-t4/ (\"up to 38 full-HD video streams\"), seen 2026-11-30")}
NVDEC_SOURCE = ("https://developer.nvidia.com/video-encode-and-decode-gpu-support-matrix-new (NVDEC count per GPU; "
                "RTX 5090, RTX 6000 Ada, RTX A6000 and RTX PRO 6000 from their NVIDIA datasheets), seen 2026-11-30")


def stack_of(g):
    s = (g.get("software_stack") or "").lower()
    if "rocm" in s:
        return "rocm"
    if "gaudi" in s or "synapse" in s:
        return "synapseai"
    return "cuda"


def convert(g):
    gid = g["id"]
    tf = g.get("dense_tflops") or {}
    dense = {k: tf.get(k) for k in ("fp32", "tf32", "fp16", "bf16", "fp8")}
    dense["int8"] = tf.get("int8_tops")
    dense["fp4"] = tf.get("fp4")
    if dense["fp16"] is None and dense["bf16"] is not None:
        dense["fp16"] = dense["bf16"]
    nominal = float(g["memory_gb"])
    if gid in REPORTED_MIB:
        mib, src = REPORTED_MIB[gid]
        capacity, basis = mib * 1048576, "reported"
    else:
        capacity, basis, src = int(nominal * 2**30), "nominal", "vendor capacity read as GiB; CUDA reports a little less"
    sources = dict(g.get("sources") or {})
    sources["memory_capacity"] = src
    if gid in NVDEC:
        sources["nvdec_engines"] = NVDEC_SOURCE
    if gid in DECODE_1080P30:
        sources["decode_streams_1080p30"] = DECODE_1080P30[gid][1]
    prices = [{"provider": p["provider"], "usd_per_gpu_hour": p["usd_per_gpu_hour"], "date_seen": p["date_seen"],
               "source": p["source"], "note": p.get("note", "")} for p in g.get("cloud_prices", [])
              if not (gid == "v100-sxm2-32gb" and "16GB" in p["provider"])]
    for provider, usd, date, source in EXTRA_PRICES.get(gid, []):
        prices.append({"provider": provider, "usd_per_gpu_hour": usd, "date_seen": date, "source": source,
                       "note": "INDICATIVE."})
    seg = SEGMENTS[g["segment"]]
    bw = g.get("interconnect_bw_gbs")
    cc = g.get("cuda_compute_capability")
    return {
        "id": gid, "vendor": g["vendor"], "name": g["name"], "architecture": g["architecture"],
        "segment": seg, "form_factor": g["form_factor"],
        "memory": {"nominal_gb": nominal, "capacity_bytes": capacity, "capacity_basis": basis,
                   "type": g.get("memory_type") or ""},
        "memory_bandwidth_gb_per_s": round(g["memory_bandwidth_tbs"] * 1000, 1) if g.get("memory_bandwidth_tbs") else None,
        "dense_tflops": dense,
        "interconnect": {"kind": g["interconnect"], "gb_per_s": bw},
        "pcie_gen": g.get("pcie_gen"),
        "board_power_w": g.get("tdp_w"),
        "software": {"stack": stack_of(g), "compute_capability": cc, "gfx_target": g.get("rocm_gfx_target")},
        "needs_server_chassis": seg == "datacenter-module",
        "nvdec_engines": NVDEC.get(gid),
        "decode_streams_1080p30": DECODE_1080P30[gid][0] if gid in DECODE_1080P30 else None,
        "purchase_usd": g.get("msrp_usd"),
        "prices": prices,
        "sources": sources,
        "uncertain": g.get("uncertain_fields", []),
        "notes": g.get("notes", ""),
    }


def main():
    with open(sys.argv[1]) as handle:
        research = json.load(handle)
    ids = {g["id"] for g in research}
    gpus = [convert(g) for g in research] + [convert(g) for g in EXTRA if g["id"] not in ids]
    out = {"schema_version": 1, "catalog_version": "2026-11-30", "gpus": gpus}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
