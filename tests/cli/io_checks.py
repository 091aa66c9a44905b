#!/usr/bin/env python3
"""End-to-end checks of `hpcsim io`: output keys, sharing, striping, IOPS limits, determinism, errors.
Usage: io_checks.py HPCSIM SOURCE_DIR CHECK"""
import json


from cli_support import TEST_CONFIGS, expect, expect_bad_input, hpcsim, run_check


def io(storage, samples, size, readers=1, *extra):
    proc = hpcsim("io", "--storage", storage, "--samples", str(samples), "--sample-size", size,
                  "--readers", str(readers), "--format", "json", *extra)
    expect(proc.returncode == 0, f"io on {storage} should succeed", proc)
    return json.loads(proc.stdout), proc


def check_io_json():
    doc, proc = io("nvme-p5500", 1000, "110KiB", 8)
    for key in ["storage", "kind", "samples", "sample_size_bytes", "readers", "nodes", "time_s", "throughput",
                "bottleneck", "utilisation", "events"]:
        expect(key in doc, f"missing JSON key {key}", proc)
    expect(doc["sample_size_bytes"] == 110 * 1024, "110KiB is 112,640 bytes", proc)
    tp = doc["throughput"]
    expect(abs(tp["samples_per_s"] * doc["time_s"] - 1000) < 1e-6 * 1000, "samples/s times time is the samples", proc)
    expect(abs(tp["bytes_per_s"] - tp["samples_per_s"] * 110 * 1024) < 1e-6 * tp["bytes_per_s"], "bytes/s", proc)


def check_io_nfs_shared():
    # Readers on separate client nodes: together they cannot beat the server's 2x 25 GbE, and each gets a
    # share of it.
    one, _ = io("nfs-2x25g", 64, "256MiB", 1)
    many, proc = io("nfs-2x25g", 64, "256MiB", 16, "--nodes", "16")
    expect(many["bottleneck"] == "server network", "16 clients saturate the server's ports", proc)
    two_ports = 2 * 25.78125e9 / 8
    expect(many["throughput"]["bytes_per_s"] < two_ports, "no more than two 25 GbE ports carry", proc)
    expect(many["throughput"]["bytes_per_s"] > 0.9 * two_ports, "the ports are nearly full", proc)
    expect(one["throughput"]["bytes_per_s"] < 0.55 * many["throughput"]["bytes_per_s"],
           "one client is held to its own 25 GbE port", proc)


def check_io_striping():
    rates = []
    for k in [1, 2, 3, 4, 8]:
        doc, proc = io("lustre-flash", 4, "4GiB", 1, "--stripe-count", str(k))
        rates.append((k, doc["throughput"]["bytes_per_s"], doc["bottleneck"]))
    expect(rates[0][2] == "target bandwidth", f"one stripe is limited by its target: {rates}")
    expect(abs(rates[1][1] / rates[0][1] - 2) < 0.02 and abs(rates[2][1] / rates[0][1] - 3) < 0.02,
           f"2 and 3 stripes read 2x and 3x as fast: {rates}")
    expect(rates[3][2] == "client network" and rates[4][2] == "client network", f"then the network limits: {rates}")
    expect(abs(rates[4][1] - rates[3][1]) < 0.01 * rates[3][1], f"more stripes no longer help: {rates}")


def check_io_iops():
    doc, proc = io("hdd-7200rpm", 2000, "110KiB", 16)
    expect(doc["bottleneck"] == "device IOPS", "small reads from a disk are IOPS-bound", proc)
    expect(150 < doc["throughput"]["samples_per_s"] <= 170, "close to the disk's 170 IOPS", proc)
    doc, proc = io("nvme-p5500", 2000, "4KiB", 1)
    expect(doc["bottleneck"] == "request latency", "one reader on NVMe waits on latency", proc)


def check_io_deterministic():
    args = ["io", "--storage", "lustre-hdd", "--samples", "3000", "--sample-size", "3MiB", "--readers", "24",
            "--nodes", "3", "--stripe-count", "4", "--format", "json"]
    first, second = hpcsim(*args), hpcsim(*args)
    expect(first.returncode == 0 and first.stdout == second.stdout, "two runs are byte-identical", first)


def check_io_errors():
    base = ["--samples", "10", "--sample-size", "110KiB"]
    expect_bad_input(hpcsim("io", "--storage", "nfs-2x25gb", *base), "--storage nfs-2x25gb", "did you mean 'nfs-2x25g'")
    expect_bad_input(hpcsim("io", "--storage", "nvme-p5500", "--samples", "10", "--sample-size", "110KiBs"),
                     "--sample-size 110KiBs", "unknown unit")
    expect_bad_input(hpcsim("io", "--storage", "nvme-p5500", "--samples", "10", "--sample-size", "0B"), "--sample-size 0B")
    expect_bad_input(hpcsim("io", "--storage", "nvme-p5500", "--samples", "0", "--sample-size", "1MiB"), "--samples")
    expect_bad_input(hpcsim("io", "--storage", "nvme-p5500", *base, "--readers", "0"), "--readers")
    expect_bad_input(hpcsim("io", "--storage", "nvme-p5500", *base, "--readers", "many"), "--readers")
    expect_bad_input(hpcsim("io", "--storage", "nvme-p5500", *base, "--frobnicate"), "--frobnicate")
    expect_bad_input(hpcsim("io", "--storage", "nvme-p5500", *base, "--format", "xml"), "xml")
    expect_bad_input(hpcsim("io", "--samples", "10", "--sample-size", "1MiB"), "--storage")
    expect_bad_input(hpcsim("io", "--storage", "nvme-p5500", *base, "--stripe-count", "2"), "--stripe-count", "pfs")
    expect_bad_input(hpcsim("io", "--storage", "lustre-hdd", *base, "--stripe-count", "33"), "--stripe-count 33",
                     "32 targets")
    env = {"HPCSIM_CONFIG_DIR": TEST_CONFIGS}
    expect_bad_input(hpcsim("io", "--storage", "negative-bandwidth-disk", *base, env=env),
                     "negative-bandwidth-disk.yaml:5:19:")
    expect_bad_input(hpcsim("io", "--storage", "striped-disk", *base, env=env), "striped-disk.yaml:4:1:",
                     "does not apply to a 'local'")
    expect_bad_input(hpcsim("io", "--storage", "unknown-network-nfs", *base, env=env),
                     "unknown-network-nfs.yaml:3:10:", "token-ring-16m")


run_check({"io_json": check_io_json, "io_nfs_shared": check_io_nfs_shared, "io_striping": check_io_striping,
 "io_iops": check_io_iops, "io_deterministic": check_io_deterministic, "io_errors": check_io_errors})
