#!/usr/bin/env bash
# Installs what hpcsim needs from Debian 12's packages, only what is missing. Safe to run again.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config
          libboost-graph-dev libeigen3-dev libyaml-cpp-dev libsqlite3-dev libcli11-dev catch2
          libbenchmark-dev python3 libopenmpi-dev openmpi-bin python3-matplotlib
          nlohmann-json3-dev zlib1g-dev      # PyTorch profiler (Kineto) traces, .json.gz
          libprotobuf-dev protobuf-compiler  # Chakra execution traces (optional: skipped by CMake without them)
          python3-dev pybind11-dev python3-pybind11 python3-pandas            # the Python module (docs/python.md)
          python3-nbclient python3-nbconvert python3-ipykernel                # its notebooks, run by CTest
          chromium)  # chromium (~100 MB): only the test that renders `hpcsim report`'s HTML needs it
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
