#!/usr/bin/env python3
"""Builds data/gpus.json from the research notes (a gpus.json of raw findings, one entry per GPU, each
with its sources) plus the additions below, each with its own source. Run it again when the notes
change; review the diff. Usage: scripts/build_gpu_catalog.py RESEARCH_GPUS_JSON > data/gpus.json"""
import json
import re
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
    "a10g-24gb": (23028, "nvidia-smi in NVIDIA/DCGM#232 and g5 logs ('NVIDIA A10G, 23028 MiB'), seen 2026-12-01"),
    "rtx-5090-32gb": (32607, "nvidia-smi total in noonghunna/club-3090#1261 (32607MiB), seen 2026-12-01"),
    "rtx-6000-ada-48gb": (49140, "nvidia-smi total in aikitoria/open-gpu-kernel-modules#38 and thamada/nvidia-smi gls logs, seen 2026-12-01"),
    "rtx-pro-6000-blackwell-ws-96gb": (97887, "nvidia-smi total in fwupd/fwupd#10896 (97887MiB), seen 2026-12-01"),
    "h100-nvl-94gb": (95830, "nvidia-smi total in thamada/nvidia-smi gls logs (95830MiB), seen 2026-12-01"),
    "gh200-96gb": (97871, "nvidia-smi total in NVIDIA/apex#1833 (97871MiB), seen 2026-12-01"),
    "b200-hgx-180gb": (183359, "nvidia-smi total in NVIDIA/TensorRT-LLM#10278 (183359MiB), seen 2026-12-01"),
    "a100-pcie-80gb": (81920, "SkyPilot catalogue (cudo vms.csv) A100 PCIe 80GB memory 81920 MiB, seen 2026-12-01"),
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

# Prices re-checked on 2026-12-01 (on-demand, USD per GPU-hour; per-instance prices divided by the GPUs). A GPU
# listed here takes exactly these offers; the others keep the research table's. A null price is a provider
# that rents the GPU without a price we could source. Sources: CoreWeave's pricing page as saved 2026-10-07
# (ewyluda/macrogauge tests/fixtures/coreweave_pricing.html @338a61ba); the AWS EC2 price list published
# 2026-10-06 (same repository, aws_gpu_prices.json); SkyPilot's catalogue v8 (lambda @0f407038, runpod
# @01acdfd4, aws @00148f2a); Lambda's and RunPod's pages as transcribed 2026-09-20 and 2026-10-07
# (api-evangelist/lambda-labs, api-evangelist/runpod); Nebius' page of 2026-10-08 (ewyluda/macrogauge
# tests/test_cloudgpu.py); Hivenet's documentation changelog (hivererer/hivenet-compute-docs @6187cad6).
CW = "https://www.coreweave.com/pricing (saved 2026-10-07 in ewyluda/macrogauge tests/fixtures/coreweave_pricing.html)"
AWS = "AWS EC2 price list, us-east-1 Linux on-demand, published 2026-10-06 (ewyluda/macrogauge tests/fixtures/aws_gpu_prices.json)"
SKY_LAMBDA = "https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/lambda/vms.csv @0f4070387edc)"
SKY_RUNPOD = "https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/runpod/vms.csv @01acdfd419ce)"
NEBIUS = "https://nebius.com/prices as recorded 2026-10-08 (ewyluda/macrogauge tests/test_cloudgpu.py)"
HIVENET = ("https://docs.hivenet.com changelog (hivererer/hivenet-compute-docs @6187cad6): RTX 5090 only; 'On August 8, 2026, "
           "Hivenet completed the retirement of its RTX 4090 Compute fleet'")
PRICES = {
    "rtx-4090-24gb": [("RunPod (secure)", 0.74, "2026-11 (catalogue v8)", SKY_RUNPOD, "1x_RTX4090_SECURE $0.74"),
                      ("RunPod (community)", 0.34, "2026-09-07", "https://deploybase.ai/articles/rtx-5090-cloud", "community cloud, same value in a 2026-09-07 snapshot")],
    "rtx-5090-32gb": [("RunPod (secure)", 0.99, "2026-11 (catalogue v8)", SKY_RUNPOD, "1x_RTX5090_SECURE $0.99"),
                      ("RunPod (community)", 0.69, "2026-09-07", "https://deploybase.ai/articles/rtx-5090-cloud", "community cloud"),
                      ("Hivenet", None, "2026-08-14", HIVENET, "price varies by location and shows in the console; EUR 0.40/h in October 2025 (not converted)")],
    "rtx-pro-6000-blackwell-se-96gb": [("RunPod (secure)", 2.09, "2026-11 (catalogue v8)", SKY_RUNPOD, "4x_RTXPRO6000_SECURE $8.36 / 4"),
                                       ("CoreWeave", 2.50, "2026-10-07", CW, "RTX PRO 6000 node $20.00 / 8")],
    "rtx-pro-6000-blackwell-ws-96gb": [("RunPod (secure)", 1.89, "2026-11 (catalogue v8)", SKY_RUNPOD, "4x_RTXPRO6000-WK_SECURE $7.56 / 4")],
    "a100-sxm-80gb": [("Lambda", 2.79, "2026-11 (catalogue v8)", SKY_LAMBDA, "gpu_8x_a100_80gb_sxm4 $22.32 / 8"),
                      ("CoreWeave", 2.70, "2026-09-20", CW, "NVIDIA A100 $21.60 for 8 GPUs"),
                      ("AWS (p4de.24xlarge)", 3.43, "2026-11 (catalogue v8)", "https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/aws/vms.csv @00148f2af367)", "$27.44705 / 8, us-west-2")],
    "a100-pcie-80gb": [("RunPod (secure)", 1.39, "2026-11 (catalogue v8)", SKY_RUNPOD, "1x_A100-80GB_SECURE $1.39")],
    "h100-sxm-80gb": [("Lambda", 3.99, "2026-11 (catalogue v8)", SKY_LAMBDA, "gpu_8x_h100_sxm5 $31.92 / 8"),
                      ("RunPod (secure)", 3.99, "2026-11-09", "datareceipts vendors.json (RunPod H100 SXM: 3.29 on 2026-08-19, 3.49 on 2026-10-07, 3.99 on 2026-11-09)", "moves often"),
                      ("Nebius", 4.50, "2026-10-08", NEBIUS, "HGX H100, effective 2026-10-01"),
                      ("CoreWeave", 6.155, "2026-10-07", CW, "HGX H100 $49.24 / 8"),
                      ("AWS (p5.48xlarge)", 6.88, "2026-10-06", AWS, "$55.04 / 8")],
    "h100-pcie-80gb": [("Lambda", 3.29, "2026-11 (catalogue v8)", SKY_LAMBDA, "gpu_1x_h100_pcie $3.29"),
                       ("RunPod (secure)", 2.89, "2026-11 (catalogue v8)", SKY_RUNPOD, "8x_H100_SECURE (H100 PCIe) $23.12 / 8")],
    "h100-nvl-94gb": [("RunPod (secure)", 3.19, "2026-11 (catalogue v8)", SKY_RUNPOD, "10x_H100-NVL_SECURE $31.90 / 10")],
    "h200-sxm-141gb": [("RunPod (secure)", 4.59, "2026-10-07", SKY_RUNPOD, "Pods - H200 $4.59; 4x_H200-SXM_SECURE $18.36 / 4"),
                       ("Nebius", 5.40, "2026-10-08", NEBIUS, "HGX H200"),
                       ("CoreWeave", 6.305, "2026-10-07", CW, "HGX H200 $50.44 / 8"),
                       ("AWS (p5en.48xlarge)", 7.912, "2026-10-06", AWS, "$63.296 / 8")],
    "gh200-96gb": [("Lambda", 2.29, "2026-11 (catalogue v8)", SKY_LAMBDA, "gpu_1x_gh200 $2.29"),
                   ("CoreWeave", 6.50, "2026-10-07", CW, "GH200 $6.50 for 1")],
    "b200-hgx-180gb": [("Lambda", 6.69, "2026-09-20", SKY_LAMBDA, "gpu_8x_b200_sxm6 $53.52 / 8"),
                       ("RunPod (secure)", 6.79, "2026-10-07", SKY_RUNPOD, "Pods - B200 $6.79"),
                       ("Nebius", 8.50, "2026-10-08", NEBIUS, "HGX B200"),
                       ("CoreWeave", 8.60, "2026-10-07", CW, "HGX B200 $68.80 / 8"),
                       ("AWS (p6-b200.48xlarge)", 14.24, "2026-10-06", AWS, "$113.9328 / 8")],
    "b300-hgx-288gb": [("Nebius", 9.50, "2026-10-08", NEBIUS, "HGX B300"),
                       ("AWS (p6-b300.48xlarge)", 17.80, "2026-11 (catalogue v8)", "https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/aws/vms.csv @00148f2af367)", "$142.416 / 8, us-west-2")],
    "l40s-48gb": [("RunPod (secure)", 0.99, "2026-11 (catalogue v8)", SKY_RUNPOD, "8x_L40S_SECURE $7.92 / 8"),
                  ("CoreWeave", 2.25, "2026-09-20", CW, "L40S $18.00 for 8 GPUs")],
    "l4-24gb": [("RunPod (secure)", 0.49, "2026-11 (catalogue v8)", SKY_RUNPOD, "8x_L4_SECURE $3.92 / 8"),
                ("AWS (g6.48xlarge)", 1.67, "2026-10-06", AWS, "$13.3504 / 8")],
    "a10-24gb": [("Lambda", 1.29, "2026-11 (catalogue v8)", SKY_LAMBDA, "gpu_1x_a10 $1.29")],
    "mi300x-192gb": [("RunPod (secure)", 2.39, "2026-11 (catalogue v8)", SKY_RUNPOD, "1x_MI300X_SECURE $2.39"),
                     ("DigitalOcean", 2.59, "2026-10-07", "https://huggingface.co/datasets/tokenwatt/gpu-cloud-prices (DigitalOcean API list price)", "gpu-mi300x1-192gb"),
                     ("TensorWave", 1.50, "2026-05-18", "https://www.cliffcenter.com/research/amd-inference-economics", "secondary source")],
}

# NVDEC engines (NVIDIA Video Encode/Decode support matrix and the cards' datasheets), used by video
# workloads; a card not listed has an unknown count and the tool says so.
NVDEC = {"h100-sxm-80gb": 7, "h100-pcie-80gb": 7, "h100-nvl-94gb": 7, "h200-sxm-141gb": 7, "h200-nvl-141gb": 7,
         "h100-sxm-96gb": 7, "gh200-96gb": 7, "a100-sxm-40gb": 5, "a100-pcie-40gb": 5, "a100-sxm-80gb": 5,
         "a100-pcie-80gb": 5, "l4-24gb": 4, "l40s-48gb": 3, "a10-24gb": 2, "a10g-24gb": 2, "t4-16gb": 2,
         "rtx-4090-24gb": 1, "rtx-5090-32gb": 2, "rtx-6000-ada-48gb": 3, "rtx-a6000-48gb": 2,
         "rtx-pro-6000-blackwell-ws-96gb": 4, "rtx-pro-6000-blackwell-se-96gb": 4,
         "b200-hgx-180gb": 7, "b300-hgx-288gb": 7, "v100-sxm2-32gb": 1, "v100-sxm2-16gb": 1, "v100-pcie-16gb": 1}
# NVDEC counts not in the support matrix's copy, each from its own NVIDIA document.
V100_NVDEC = ("NVIDIA A100 Tensor Core GPU architecture whitepaper: '5 NVDECs in A100 compared to 1 NVDEC in V100' "
              "(https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf), seen 2026-12-04")
NVDEC_SOURCES = {
    "b200-hgx-180gb": "NVIDIA Blackwell datasheet, HGX B200 column: 'Decoders | 7 NVDEC, 7 nvJPEG' "
                      "(https://nvdam.widen.net/s/wwnsxrhm2w/blackwell-datasheet-3384703); NVIDIA Dynamo docs, video decode "
                      "GPU requirements: 'B200, GB200 | Blackwell | 7 engines' (https://docs.nvidia.com/dynamo/dev/multimodal/"
                      "video-decode-gpu-requirements), seen 2026-12-04",
    "b300-hgx-288gb": "NVIDIA Blackwell Ultra datasheet, HGX B300 column: 'Decoders | 7 NVDEC, 7 nvJPEG' "
                      "(https://resources.nvidia.com/en-us-blackwell-architecture/blackwell-ultra-datasheet), seen 2026-12-04",
    "v100-sxm2-32gb": V100_NVDEC, "v100-sxm2-16gb": V100_NVDEC, "v100-pcie-16gb": V100_NVDEC,
}
# Published whole-card decode figures (H.264 1080p30 streams), with their source.
DECODE_1080P30 = {"t4-16gb": (38, "https://www.nvidia.com/en-us/data-center/tesla-t4/ (\"up to 38 full-HD video streams\"), seen 2026-11-30")}
NVDEC_SOURCE = ("https://developer.nvidia.com/video-encode-and-decode-gpu-support-matrix-new (NVDEC count per GPU; "
                "RTX 5090, RTX 6000 Ada, RTX A6000 and RTX PRO 6000 from their NVIDIA datasheets), seen 2026-11-30")


# Where a GPU lives (servers.md Table 1a, re-checked 2026-12-01): GPUs in one common server, the GPUs one
# fast link joins (NVLink/NVSwitch, xGMI or Gaudi's RoCE scale-up; 2 for bridged pairs, 0 for none), whether
# PCIe peer-to-peer works with the stock driver (None: not known), and the network between nodes per GPU
# in Gb/s (0: none, so no multi-node plans; None: not known, so none are offered either).
SKY_AWS = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"
NODE = {
    "rtx-3090-24gb": (4, 2, None, 0, "none (consumer card)", "workstation 2-4 cards (servers.md Table 1a; unverified for the 3090); 2-way NVLink bridge"),
    "rtx-4090-24gb": (8, 0, False, 0, "none (consumer card)", "8x RTX 4090 in one server: https://github.com/tinygrad/open-gpu-kernel-modules/issues/17; no P2P with the stock driver: https://github.com/NVIDIA/nccl/issues/1127"),
    "rtx-5090-32gb": (4, 0, False, 0, "none (consumer card)", "no NVLink; 575 W cards, workstation shapes of up to 4 (servers.md: up to 8 unverified); stock-driver P2P not enabled: https://github.com/tinygrad/open-gpu-kernel-modules/issues/29"),
    "rtx-4070-ti-super-16gb": (4, 0, False, 0, "none (consumer card)", "consumer card, workstation shapes of up to 4 (servers.md, unverified)"),
    "rtx-a6000-48gb": (4, 2, None, 0, "none (workstation card)", "Lambda gpu_4x_a6000 (SkyPilot catalogue 11580132); 2-way NVLink bridge https://servethehome.com/nvidia-rtx-a6000-48gb-gpu-drops-quadro-designation"),
    "rtx-6000-ada-48gb": (8, 0, None, 0, "none (workstation card)", "8x RTX 6000 Ada server in thamada/nvidia-smi gls logs; no NVLink"),
    "rtx-pro-6000-blackwell-ws-96gb": (4, 0, None, 0, "none (workstation card)", "workstation shapes of up to 4 (servers.md, unverified); no NVLink"),
    "rtx-pro-6000-blackwell-se-96gb": (8, 0, None, 50, "GCP G4: 400 Gb/s per 8 GPUs", "GCP g4-standard-384 (8 GPUs, 400 Gbps): https://docs.cloud.google.com/compute/docs/gpus and https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth"),
    "radeon-pro-w7900-48gb": (4, 0, None, 0, "none (workstation card)", "workstation shapes of up to 4 (servers.md, unverified); no Infinity Fabric link"),
    "l4-24gb": (8, 0, None, 12.5, "100 Gb/s per 8 GPUs (g2-standard-96, g6.48xlarge)", "https://docs.cloud.google.com/compute/docs/gpus; " + SKY_AWS),
    "l40s-48gb": (8, 0, None, None, "EFA (g6e.48xlarge); rate not sourced", "g6e.48xlarge 8x L40S: https://github.com/meta-pytorch/torchx/blob/cafea3f3f4756976c6f3c130701fde4b20ac4d7b/torchx/specs/named_resources_aws.py"),
    "a10-24gb": (1, 0, None, None, "not known", "Lambda gpu_1x_a10 (SkyPilot catalogue 11580132); larger A10 nodes not sourced"),
    "a10g-24gb": (8, 0, None, 12.5, "100 Gb/s per 8 GPUs (g5.48xlarge)", "g5.48xlarge: " + SKY_AWS),
    "t4-16gb": (4, 0, None, 12.5, "50 Gb/s per 4 GPUs (g4dn.12xlarge)", "g4dn.12xlarge: " + SKY_AWS),
    "v100-sxm2-16gb": (8, 8, True, 12.5, "100 Gb/s per 8 GPUs (p3dn.24xlarge)", "p3.16xlarge/p3dn.24xlarge: " + SKY_AWS + "; hybrid cube-mesh NVLink https://www.alibabacloud.com/help/doc-detail/190482.htm"),
    "v100-sxm2-32gb": (8, 8, True, 12.5, "100 Gb/s per 8 GPUs (p3dn.24xlarge)", "p3dn.24xlarge: " + SKY_AWS),
    "v100-pcie-16gb": (8, 0, None, None, "not known", "8 per server (servers.md, unverified)"),
    "a100-sxm-40gb": (8, 8, True, 200, "HDR InfiniBand 200 Gb/s per GPU (Azure ND A100 v4)", "https://github.com/MicrosoftDocs/azure-docs/blob/main/articles/virtual-machines/sizes/gpu-accelerated/includes/ndasra100v4-series-specs.md"),
    "a100-sxm-80gb": (8, 8, True, 200, "HDR InfiniBand 200 Gb/s per GPU (Azure ND A100 v4)", "https://github.com/MicrosoftDocs/azure-docs/blob/main/articles/virtual-machines/sizes/gpu-accelerated/includes/ndma100v4-series-specs.md"),
    "a100-pcie-40gb": (8, 2, None, None, "not known", "8x A100 PCIe servers (RunPod, SkyPilot catalogue 0727c2bd); NVLink bridge pairs"),
    "a100-pcie-80gb": (8, 2, None, None, "not known", "8x A100 80GB PCIe (RunPod, SkyPilot catalogue 0727c2bd); NVLink bridge pairs"),
    "h100-sxm-80gb": (8, 8, True, 400, "NDR InfiniBand 400 Gb/s per GPU", "Dell XE9680 MLPerf system description (8x 400 Gb IB) and Azure ND H100 v5 (8x 400 Gb NDR): https://github.com/MicrosoftDocs/azure-docs/blob/main/articles/virtual-machines/sizes/gpu-accelerated/includes/ndh100v5-series-specs.md"),
    "h100-pcie-80gb": (8, 2, None, None, "not known", "NexGen n3-H100x8: https://infrahub-doc.nexgencloud.com/docs/hardware/flavors/; NVLink bridge pairs"),
    "h100-nvl-94gb": (8, 2, None, None, "not known", "2 GPUs per NVLink bridge group (https://www.nvidia.com/en-us/data-center/h100/); 8 per server unverified"),
    "h100-sxm-96gb": (8, 8, True, 400, "backend RDMA network 400 Gb/s per GPU (Grand Teton)", "torchtitan benchmarks (docs/benchmarks/llama3_h100_202412_torchtitan.md): 'Each host has 8 NVIDIA H100 GPUs fully connected with NVLink', 'Hosts are inter-connected with backend RDMA network with 400 Gb/s per GPU'"),
    "h200-sxm-141gb": (8, 8, True, 400, "NDR InfiniBand 400 Gb/s per GPU", "NVIDIA H200-SXM x8 MLPerf system: https://raw.githubusercontent.com/mlcommons/inference_results_v4.1/main/closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json; AWS p5e 3200 Gbps"),
    "h200-nvl-141gb": (None, 4, None, None, "not known", "2- or 4-way NVLink bridge (https://www.nvidia.com/en-us/data-center/h200/); per-server count unverified"),
    "gh200-96gb": (1, 1, None, None, "not known", "cloud GH200 nodes hold one superchip (Lambda gpu_1x_gh200, CoreWeave GH200); NVL32 racks are a separate product"),
    "b200-hgx-180gb": (8, 8, True, 400, "NDR InfiniBand 400 Gb/s per GPU (8x ConnectX-7)", "Nebius B200 MLPerf system: https://raw.githubusercontent.com/mlcommons/inference_results_v6.0/main/closed/Nebius/systems/nebius_b200_n1.json"),
    "b300-hgx-288gb": (8, 8, True, 800, "EFAv4 6.4 Tb/s per 8 GPUs (p6-b300)", "p6-b300.48xlarge: https://github.com/meta-pytorch/torchx/blob/cafea3f3f4756976c6f3c130701fde4b20ac4d7b/torchx/specs/named_resources_aws.py"),
    "mi300x-192gb": (8, 8, True, 400, "NDR InfiniBand 400 Gb/s per GPU (Azure ND MI300X v5)", "https://github.com/MicrosoftDocs/azure-docs/blob/main/articles/virtual-machines/sizes/gpu-accelerated/includes/nd-mi300x-v5-series-specs.md"),
    "mi325x-256gb": (8, 8, True, None, "not known", "8 per UBB, same platform as MI300X (servers.md, secondary)"),
    "mi350x-288gb": (8, 8, True, None, "not known", "8x MI350X MLPerf system: https://github.com/mlcommons/inference_results_v6.1/tree/main/closed/AMD"),
    "mi355x-288gb": (8, 8, True, 400, "8x AMD Pollara 400G RoCE per node", "Crusoe MI355X MLPerf system: https://raw.githubusercontent.com/mlcommons/inference_results_v6.1/main/closed/Crusoe/systems/512xMI355X_Crusoe_GPT.json"),
    "gaudi3-128gb": (8, 8, True, 600, "3x 200 GbE RoCE scale-out ports per card", "HLS-3 8-card server and its network: https://docs.habana.ai/en/latest/Management_and_Monitoring/Network_Configuration/index.html"),
}

# Host memory of the node a NODE row describes, GB as the source gives it (servers.md Table 2 and reference
# nodes, seen 2026-12-01); bounds what CPU offload can hold. Not listed: not known.
HOST_RAM_GB = {
    "rtx-a6000-48gb": (400, "Lambda gpu_4x_a6000: 400 GiB (SkyPilot catalogue 11580132)"),
    "a10-24gb": (200, "Lambda gpu_1x_a10: 200 GiB (SkyPilot catalogue 11580132)"),
    "a10g-24gb": (768, "g5.48xlarge: 768 GiB (" + SKY_AWS + ")"),
    "l4-24gb": (768, "g6.48xlarge: 768 GiB (" + SKY_AWS + ")"),
    "l40s-48gb": (1536, "g6e.48xlarge: 1536 GiB (torchx named_resources_aws.py)"),
    "t4-16gb": (192, "g4dn.12xlarge: 192 GiB (" + SKY_AWS + ")"),
    "v100-sxm2-16gb": (488, "p3.16xlarge: 488 GiB (" + SKY_AWS + ")"),
    "v100-sxm2-32gb": (768, "p3dn.24xlarge: 768 GiB (" + SKY_AWS + ")"),
    "rtx-pro-6000-blackwell-se-96gb": (1440, "GCP g4-standard-384: 1440 GB"),
    "a100-sxm-40gb": (1152, "p4d.24xlarge: 1152 GiB (" + SKY_AWS + ")"),
    "a100-sxm-80gb": (1800, "Lambda gpu_8x_a100_80gb_sxm4: 1800 GiB (SkyPilot catalogue 11580132)"),
    "a100-pcie-80gb": (640, "RunPod 8x A100 80GB PCIe: 640 GB (SkyPilot catalogue 0727c2bd)"),
    "h100-sxm-80gb": (2048, "Dell XE9680 MLPerf node and AWS p5.48xlarge: 2 TB"),
    "h100-pcie-80gb": (1440, "NexGen n3-H100x8: 1440 GB"),
    "h200-sxm-141gb": (2048, "NVIDIA H200-SXM x8 MLPerf node: 2 TB"),
    "gh200-96gb": (432, "Lambda gpu_1x_gh200: 432 GiB (the Grace CPU's LPDDR5X)"),
    "b200-hgx-180gb": (1800, "Nebius B200 x8 MLPerf node: 1.8 TB"),
    "b300-hgx-288gb": (4096, "AWS p6-b300.48xlarge: 4096 GiB (torchx named_resources_aws.py)"),
    "mi300x-192gb": (1536, "AMD 8x MI300X MLPerf node: 1.5 TiB"),
    "mi355x-288gb": (3000, "Crusoe MI355X MLPerf node: 3000 GB"),
}

# Low-precision tensor formats by architecture (servers.md Table 1c; NVIDIA Transformer Engine support
# matrix https://nvidia.github.io/TransformerEngine/support_matrix.html, ROCm precision support
# https://rocm.docs.amd.com/compatibility/precision-support.html, Gaudi FP8 docs), seen 2026-12-01.
def low_precision(g):
    arch = g["architecture"].lower()
    cc = g.get("cuda_compute_capability")
    gfx = g.get("rocm_gfx_target") or ""
    fp8 = fp4 = False
    if cc:
        ccv = float(cc)
        fp8 = ccv >= 8.9
        fp4 = ccv >= 10.0
    elif gfx.startswith("gfx942"):
        fp8 = True
    elif gfx.startswith("gfx950"):
        fp8 = fp4 = True
    elif "gaudi" in arch:
        fp8 = True
    return {"fp8": fp8, "fp4": fp4}

# Tensor peaks the research table lacks, each from a vendor table (or its arithmetic), seen 2026-12-01.
TFLOPS_FIX = {
    "rtx-6000-ada-48gb": ({"fp8": 728.5, "fp32": 91.1},
                          "NVIDIA RTX 6000 Ada datasheet: 'Tensor performance 1457.0 TFLOPS' with footnote 'Effective FP8 TFLOPS using the new sparsity feature' (dense = 1457.0 / 2) and 'Single-precision performance 91.1 TFLOPS'",
                          []),
    "rtx-pro-6000-blackwell-ws-96gb": ({"fp8": 1007.6, "fp4": 2015.2},
                          "NVIDIA RTX Blackwell PRO GPU Architecture whitepaper v1.0, Appendix A: FP8 1,007.6 / 2,015.2 and FP4 2,015.2 / 4,030.4 TFLOPS dense / sparse (one secondary transcription; the datasheet's '4000 AI TOPS' is 'Effective FP4 TOPS with sparsity')",
                          ["dense_tflops.fp8/fp4 (whitepaper rows seen in one transcription)"]),
    "rtx-pro-6000-blackwell-se-96gb": ({"bf16": 483.6, "fp16": 483.6, "fp8": 967.3, "fp4": 1934.6},
                          "derived: the Workstation Edition's whitepaper dense rates (503.8 bf16, 1,007.6 fp8, 2,015.2 fp4) x 120/125 (the Server Edition's 120 TFLOPS fp32 against the Workstation's 125: the same GB202, lower clock). NVIDIA's page lists '1 PFLOP' FP16/BF16 without a sparsity note; a measured 417 TFLOPS bf16 GEMM (zzc0721/torch-performance-test-data#162) rules that out as dense",
                          ["dense_tflops.bf16/fp16/fp8/fp4 (derived from the Workstation Edition's rates at the Server Edition's clock)"]),
    "a10g-24gb": ({"bf16": 70.0},
                  "70 TFLOPS dense bf16/fp16 as listed for the A10G in public FLOP tables (from https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/); a measured 69.47 TFLOPS bf16 GEMM (zzc0721/torch-performance-test-data#126) agrees",
                  ["dense_tflops.bf16 (secondary source, confirmed by a measured GEMM)"]),
}

# Infinity Fabric per GPU (both directions, 7 peer links on an 8-GPU board), seen 2026-12-01.
LINK_FIX = {
    "mi350x-288gb": ("Infinity Fabric (xGMI), 7 links x 153.6 GB/s", 1075.2,
                     "AMD CDNA 4 whitepaper: 38.4 Gbps x16 links, 76.8 GB/s each direction; '1,075.2 GB/s peak aggregate peer-to-peer'"),
    "mi355x-288gb": ("Infinity Fabric (xGMI), 7 links x 153.6 GB/s", 1075.2,
                     "AMD CDNA 4 whitepaper: 38.4 Gbps x16 links, 76.8 GB/s each direction; '1,075.2 GB/s peak aggregate peer-to-peer'"),
    "mi325x-256gb": ("Infinity Fabric (xGMI), 7 links x 128 GB/s", 896,
                     "AMD CDNA 3 whitepaper Table 2: '7 x16 AMD Infinity Fabric links', 'P2P ring peak aggregate I/O bandwidth 896 GB/s'"),
}


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
    uncertain = list(g.get("uncertain_fields", []))
    sources_extra = {}
    if gid in TFLOPS_FIX:
        values, src, unc = TFLOPS_FIX[gid]
        dense.update(values)
        sources_extra["tflops_added"] = src + ", seen 2026-12-01"
        uncertain += unc
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
    sources.update(sources_extra)
    if gid in NVDEC:
        sources["nvdec_engines"] = NVDEC_SOURCES.get(gid, NVDEC_SOURCE)
    if gid in DECODE_1080P30:
        sources["decode_streams_1080p30"] = DECODE_1080P30[gid][1]
    if gid in PRICES:
        prices = [{"provider": prov, "usd_per_gpu_hour": usd, "date_seen": date, "source": src, "note": "INDICATIVE. " + note}
                  for prov, usd, date, src, note in PRICES[gid]]
        return finish(g, gid, dense, nominal, capacity, basis, sources, prices, uncertain)
    prices = [{"provider": p["provider"], "usd_per_gpu_hour": p["usd_per_gpu_hour"], "date_seen": p["date_seen"],
               "source": p["source"], "note": p.get("note", "")} for p in g.get("cloud_prices", [])
              if not (gid == "v100-sxm2-32gb" and "16GB" in p["provider"])]
    for provider, usd, date, source in EXTRA_PRICES.get(gid, []):
        prices.append({"provider": provider, "usd_per_gpu_hour": usd, "date_seen": date, "source": source,
                       "note": "INDICATIVE."})
    return finish(g, gid, dense, nominal, capacity, basis, sources, prices, uncertain)


def iso_date(offer):
    """date_seen as an ISO date (YYYY-MM-DD or YYYY-MM) or None; any prose around it moves into the note."""
    raw = offer.get("date_seen")
    m = re.search(r"\d{4}-\d{2}(-\d{2})?", raw or "")
    date = m.group(0) if m else None
    if raw and raw != date:
        note = offer.get("note", "")
        offer["note"] = (note + " " if note else "") + "Seen: " + raw + "."
    offer["date_seen"] = date
    return offer


def finish(g, gid, dense, nominal, capacity, basis, sources, prices, uncertain):
    prices = [iso_date(dict(p)) for p in prices]
    seg = SEGMENTS[g["segment"]]
    bw = g.get("interconnect_bw_gbs")
    kind = g["interconnect"]
    if gid in LINK_FIX:
        kind, bw, link_src = LINK_FIX[gid]
        sources["interconnect"] = link_src + ", seen 2026-12-01"
    cc = g.get("cuda_compute_capability")
    per_node, fast, p2p, net, net_kind, node_src = NODE.get(gid, (None, 0, None, None, "not known", "not sourced"))
    return {
        "id": gid, "vendor": g["vendor"], "name": g["name"], "architecture": g["architecture"],
        "segment": seg, "form_factor": g["form_factor"],
        "memory": {"nominal_gb": nominal, "capacity_bytes": capacity, "capacity_basis": basis,
                   "type": g.get("memory_type") or ""},
        "memory_bandwidth_gb_per_s": round(g["memory_bandwidth_tbs"] * 1000, 1) if g.get("memory_bandwidth_tbs") else None,
        "dense_tflops": dense,
        "interconnect": {"kind": kind, "gb_per_s": bw},
        "node": {"gpus_per_node": per_node, "fast_link_gpus": fast, "pcie_p2p": p2p,
                 "network_gb_per_s_per_gpu": net, "network": net_kind,
                 "host_ram_gb": HOST_RAM_GB[gid][0] if gid in HOST_RAM_GB else None,
                 "source": node_src + ("; host memory: " + HOST_RAM_GB[gid][1] if gid in HOST_RAM_GB else "") + " (seen 2026-12-01)"},
        "low_precision": low_precision(g),
        "pcie_gen": g.get("pcie_gen"),
        "board_power_w": g.get("tdp_w"),
        "software": {"stack": stack_of(g), "compute_capability": cc, "gfx_target": g.get("rocm_gfx_target")},
        "needs_server_chassis": seg == "datacenter-module",
        "nvdec_engines": NVDEC.get(gid),
        "decode_streams_1080p30": DECODE_1080P30[gid][0] if gid in DECODE_1080P30 else None,
        "purchase_usd": g.get("msrp_usd"),
        "prices": prices,
        "sources": sources,
        "uncertain": uncertain,
        "notes": g.get("notes", ""),
    }


# Edge modules (Jetson Orin): NVIDIA's module data sheets (AGX Orin Series DS-10662-001 v1.6, Orin NX and Orin
# Nano Series v1.5, all December 2024, from the Jetson Download Center) and NVIDIA's Jetson FAQ prices (1KU+
# volume, page captured 2026-08-05). Memory is LPDDR5 shared with the CPU; the tensor-core fp16 peak is dense
# (half the sparse figure the data sheet gives for the AGX modules; for the Orin NX derived from its tensor
# cores and clock, for the Orin Nano half its dense INT8 TOPS): marked uncertain.
JETSON_DS = "https://developer.nvidia.com/embedded/downloads"
JETSON_FAQ = "https://developer.nvidia.com/embedded/faq"
EDGE = [
    # id, name, memory GB, bandwidth GB/s, fp32 (CUDA cores), fp16 tensor dense, power W, decode 1080p30 H.265,
    # price USD, price kind, quotes
    ("jetson-agx-orin-64gb", "Jetson AGX Orin 64GB", 64, 204.8, 5.32, 42.5, 60, 22, 2999, "module",
     "JAO 64GB: ... Up to 170 INT8 Sparse TOPS or 85 Sparse FP16 TFLOPS (Tensor Cores) | Up to 5.32 FP32 TFLOPS; "
     "Maximum Memory Bus Bandwidth (up to) 204.8 GB/s; 15W | 30W | 50W, and up to 60W; H.265 ... 1080p30 (22)",
     "| Jetson AGX Orin 64GB Module | $2999 (1KU+) |"),
    ("jetson-agx-orin-32gb", "Jetson AGX Orin 32GB", 32, 204.8, 3.365, 27.0, 40, 18, 1799, "module",
     "JAO 32GB: ... Up to 108 INT8 Sparse TOPS or 54 FP16 Sparse TFLOPS (Tensor Cores); 204.8 GB/s; 15W | 30W | 40W; "
     "H.265 ... 1080p30 (18)",
     "| Jetson AGX Orin 32GB Module | $1799 (1KU+) |"),
    ("jetson-orin-nx-16gb", "Jetson Orin NX 16GB", 16, 102.4, 1.88, 15.0, 25, 18, 999, "module",
     "Jetson Orin NX 16GB: 1024 CUDA cores | 32 Tensor cores, 918 MHz; up to 100 (Sparse) INT8 TOPs and 50 (Dense) "
     "INT8 TOPs; 102.4 GB/s; Modes: 10W | 15W | 25W; H.265 ... 1080p30 (18)",
     "| Jetson Orin NX 16GB Module | $999 (1KU+) |"),
    ("jetson-orin-nano-8gb", "Jetson Orin Nano 8GB (Super)", 8, 102.0, 2.08, 16.5, 25, 11, 399, "developer kit",
     "MAXN_SUPER: up to 67 (Sparse) INT8 TOPs and 33 (Dense) INT8 TOPs; 2.08 FP32 TFLOPs; 102 GB/s; "
     "Modes: 7W | 15W | 25W (MAXN_SUPER); H.265 ... 1080p30 (11)",
     "| Jetson Orin Nano Super Developer Kit | $399 |"),
]


def edge_entry(gid, name, mem_gb, bw, fp32, fp16, power, dec, price, kind, quote, price_quote):
    return {
        "id": gid, "vendor": "NVIDIA", "name": name, "architecture": "Ampere (Orin SoC)",
        "segment": "edge", "form_factor": "SoM module on a carrier board",
        "memory": {"nominal_gb": mem_gb, "capacity_bytes": int(mem_gb * 1e9), "capacity_basis": "nominal", "type": "LPDDR5 (shared with the CPU)"},
        "memory_bandwidth_gb_per_s": bw,
        "dense_tflops": {"fp32": fp32, "tf32": None, "fp16": fp16, "bf16": fp16, "fp8": None, "int8": round(2 * fp16, 1), "fp4": None},
        "interconnect": {"kind": "none", "gb_per_s": None},
        "node": {"gpus_per_node": 1, "fast_link_gpus": 1, "pcie_p2p": None, "network_gb_per_s_per_gpu": 0, "network": "none (edge device)",
                 "host_ram_gb": None, "source": "one module per device; memory shared with the CPU (NVIDIA CUDA for Tegra) (seen 2026-12-01)"},
        "low_precision": {"fp8": False, "fp4": False},
        "pcie_gen": 4,
        "board_power_w": power,
        "software": {"stack": "cuda", "compute_capability": "8.7", "gfx_target": None},
        "needs_server_chassis": False,
        "nvdec_engines": 1,
        "decode_streams_1080p30": dec,
        "purchase_usd": price,
        "prices": [],
        "sources": {"memory": JETSON_DS + " (module data sheet, Dec 2024): " + quote, "tflops": JETSON_DS + ": " + quote,
                    "decode_streams_1080p30": JETSON_DS + ": " + quote, "tdp_w": JETSON_DS + ": " + quote,
                    "msrp_usd": JETSON_FAQ + " (" + kind + ", captured 2026-08-05): " + price_quote},
        "uncertain": ["dense_tflops.fp16/bf16/int8 (dense tensor-core figures derived from the sparse or INT8 figures)",
                      "memory.capacity_bytes (shared with the CPU: the OS and the application take part of it)"],
        "notes": "Edge module: memory is shared with the CPU, and the power mode (" + str(power) + " W at most) sets the clocks. "
                 "Purchase price only (" + kind + ").",
    }


def main():
    with open(sys.argv[1]) as handle:
        research = json.load(handle)
    ids = {g["id"] for g in research}
    gpus = [convert(g) for g in research] + [convert(g) for g in EXTRA if g["id"] not in ids] + [edge_entry(*e) for e in EDGE]
    out = {"schema_version": 1, "catalog_version": "2026-12-01", "gpus": gpus}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
