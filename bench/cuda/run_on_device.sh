#!/usr/bin/env bash
# Builds hpcsim-cuda-bench with plain nvcc (no cmake or yaml-cpp needed) and runs it on this machine's GPU.
# Runs the whole suite (every benchmark in --list) and writes ${OUT:-.}/cuda-bench-<UTC time>.csv, whose header
# holds the date, the GPU, the CUDA driver and runtime versions (from cudart), the NVIDIA driver release (from
# nvidia-smi) and the nvcc release; plus nvidia-smi's report next to it when nvidia-smi exists.
# Extra arguments go to the benchmark, e.g. ./run_on_device.sh --quick. KERNELS=1 also runs attention_sdpa.py and
# gemm_precisions.py (PyTorch's fused attention and its matrix products by precision); SMALL=1 runs
# gemm_precisions.py --small (products of 64-512 rows, with the kernels cuBLAS chose); SUSTAINED=1 runs
# sustained_load.py (clocks and power under each precision's products held for 15 s: about 2.5 minutes).
set -euo pipefail

src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-.}"
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

build() { "$nvcc" -O3 -std=c++17 -Xcompiler -Wall,-Wextra "$1" -o "$tmp/hpcsim-cuda-bench" "$src"/*.cu -lcublas; }
# -arch=native needs a visible GPU and a recent nvcc; sm_90 covers H100/H200 otherwise.
build -arch=native || { echo "run_on_device.sh: -arch=native failed, building for sm_90" >&2; build -arch=sm_90; }

# The driver release (e.g. 580.65.06) is not available through cudart, so it comes from nvidia-smi.
headers=(--header "nvcc_version=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')")
if command -v nvidia-smi >/dev/null 2>&1; then
  driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)"
  if [ -n "$driver" ]; then headers+=(--header "nvidia_driver=$driver"); fi
fi

mkdir -p "$out"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi >"$out/cuda-bench-$stamp.nvidia-smi.txt" 2>&1 || true
fi
# The suite's own kernels as the GPU runs them (SASS): the instructions a loop trip issues beside its FMAs or
# loads, which the fma-ilp, divergence and coalescing rows' comparison needs (docs/validation.md, thirty-fourth session).
cuobjdump="$(command -v cuobjdump || echo "$(dirname "$nvcc")/cuobjdump")"
if [ -x "$cuobjdump" ]; then "$cuobjdump" -sass "$tmp/hpcsim-cuda-bench" | gzip >"$out/cuda-bench-$stamp.sass.txt.gz" || true; fi
# The host CPU: a pageable copy is staged by one of its cores (the overlap rows' staging_memcpy_us).
if command -v lscpu >/dev/null 2>&1; then lscpu >"$out/cuda-bench-$stamp.lscpu.txt" 2>&1 || true; fi
# A failing suite does not stop the scripts below: a device run is one call, and what they measure is apart.
if "$tmp/hpcsim-cuda-bench" --out "$out/cuda-bench-$stamp.csv" "${headers[@]}" "$@"; then
  echo "wrote $out/cuda-bench-$stamp.csv" >&2
else
  echo "run_on_device.sh: hpcsim-cuda-bench failed (exit $?); going on with the PyTorch scripts" >&2
fi
# PyTorch's host cost per eager call, where a CUDA PyTorch is installed (the framework profiles' dispatch).
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  python3 "$src/pytorch_dispatch.py" --out "$out/pytorch-dispatch-$stamp.csv" && echo "wrote $out/pytorch-dispatch-$stamp.csv" >&2
  # ResNet-50's batch latency, eager and from a CUDA graph (the GPU inference model's batch curve).
  # RESNET50=0 skips it (about 200 s on an H200), where a measurement of it exists.
  if [ "${RESNET50:-1}" != 0 ] && python3 -c 'import torchvision' 2>/dev/null; then
    python3 "$src/resnet50_inference.py" --out "$out/resnet50-inference-$stamp.csv" && echo "wrote $out/resnet50-inference-$stamp.csv" >&2
  fi
  # Fused attention and matrix products by precision (the kernel model's attention and GEMMs), when asked for.
  if [ "${KERNELS:-0}" = 1 ]; then
    python3 "$src/gemm_precisions.py" --out "$out/gemm-precisions-$stamp.csv" && echo "wrote $out/gemm-precisions-$stamp.csv" >&2
    python3 "$src/attention_sdpa.py" --out "$out/attention-sdpa-$stamp.csv" && echo "wrote $out/attention-sdpa-$stamp.csv" >&2
  fi
  if [ "${SMALL:-0}" = 1 ]; then
    python3 "$src/gemm_precisions.py" --small --out "$out/gemm-small-$stamp.csv" 2>"$out/gemm-small-$stamp.kernels.txt" &&
      echo "wrote $out/gemm-small-$stamp.csv" >&2
  fi
  if [ "${SUSTAINED:-0}" = 1 ]; then
    python3 "$src/sustained_load.py" --out "$out/sustained-$stamp.csv" --trace "$out/sustained-trace-$stamp.csv" &&
      echo "wrote $out/sustained-$stamp.csv" >&2
  fi
else
  echo "run_on_device.sh: no CUDA PyTorch here; skipping pytorch_dispatch.py and resnet50_inference.py" >&2
fi
