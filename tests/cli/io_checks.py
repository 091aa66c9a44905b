#!/usr/bin/env python3
"""End-to-end checks of `hpcsim io`: output keys, sharing, striping, IOPS limits, determinism, errors.
Usage: io_checks.py HPCSIM SOURCE_DIR CHECK"""
import json
import os


from cli_support import SOURCE, TEST_CONFIGS, expect, expect_bad_input, hpcsim, run_check


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


def io500(filesystem, clients, procs, *extra, env=None):
    proc = hpcsim("io", "--io500", "--filesystem", filesystem, "--clients", str(clients), "--procs", str(procs),
                  "--format", "json", *extra, env=env)
    expect(proc.returncode == 0, f"io --io500 on {filesystem} should succeed", proc)
    return json.loads(proc.stdout), proc


def check_io500_phases():
    doc, proc = io500("lustre-nvme-opa", 10, 160)
    phases = [p["phase"] for p in doc["phases"]]
    expect(phases == ["ior-easy-write", "ior-easy-read", "ior-hard-write", "ior-hard-read", "mdtest-easy-create",
                      "mdtest-easy-stat", "mdtest-easy-delete", "mdtest-hard-create", "mdtest-hard-stat",
                      "mdtest-hard-delete"], f"every IO500 phase in order: {phases}", proc)
    easy = doc["phases"][0]
    # 10 clients of one 100 Gb/s Omni-Path port each (8,192-byte packets carrying 32 bytes of headers): the
    # clients' ports set ior-easy's rate.
    expect(easy["bottleneck"] == "client ports", "10 clients are held to their own ports", proc)
    expect(abs(easy["bytes_per_s"] - 10 * 12.5e9 * 8192 / 8224) < 0.001 * easy["bytes_per_s"],
           f"10 x 100 Gb/s of payload: {easy['bytes_per_s']}", proc)
    big, proc = io500("lustre-nvme-opa", 1000, 16000)
    expect(big["phases"][0]["bottleneck"] == "server ports", "1,000 clients saturate the 24 servers' ports", proc)
    expect(big["phases"][0]["bytes_per_s"] < 24 * 12.5e9, "no more than 24 ports carry", proc)
    first, second = hpcsim("io", "--io500", "--filesystem", "lustre-nvme-opa", "--clients", "7", "--procs", "50"), \
        hpcsim("io", "--io500", "--filesystem", "lustre-nvme-opa", "--clients", "7", "--procs", "50")
    expect(first.returncode == 0 and first.stdout == second.stdout, "two runs are byte-identical", first)


def check_io500_errors():
    env = {"HPCSIM_CONFIG_DIR": TEST_CONFIGS}
    expect_bad_input(hpcsim("io", "--io500", "--filesystem", "zero-servers", env=env), "zero-servers.yaml:5:10:")
    expect_bad_input(hpcsim("io", "--io500", "--filesystem", "negative-devices", env=env), "negative-devices.yaml:7:12:")
    expect_bad_input(hpcsim("io", "--io500", "--filesystem", "unknown-type", env=env), "unknown-type.yaml:2:7:",
                     "lustre")
    expect_bad_input(hpcsim("io", "--io500", "--filesystem", "lustre-nvme-op"), "did you mean 'lustre-nvme-opa'")
    expect_bad_input(hpcsim("io", "--io500"), "--filesystem")
    expect_bad_input(hpcsim("io", "--io500", "--filesystem", "lustre-nvme-opa", "--clients", "4", "--procs", "3"),
                     "--procs 3")
    expect_bad_input(hpcsim("io", "--clients", "4"), "--io500")
    expect_bad_input(hpcsim("io", "--validate", "--io500", "--filesystem", "lustre-nvme-opa"), "--validate")
    expect_bad_input(hpcsim("io", "--validate", "--cases", "/nonexistent/cases.yaml"), "/nonexistent/cases.yaml")


def check_io500_validate():
    cases = os.path.join(SOURCE, "tests", "data", "io500-cases.yaml")
    proc = hpcsim("io", "--validate", "--cases", cases, "--format", "json")
    expect(proc.returncode == 0, "io --validate on the test cases", proc)
    doc = json.loads(proc.stdout)
    expect(doc["category"] == "io500" and doc["cases"] == 8, "8 cases", proc)
    groups = {(g["phase"], g["type"]): g for g in doc["groups"]}
    for phase in ["ior-easy-write", "ior-easy-read", "ior-hard-write", "ior-hard-read", "mdtest-easy-create",
                  "mdtest-hard-create"]:
        expect((phase, "all") in groups, f"{phase} scored over all types", proc)
    # ior-easy has no fitted number: leaving a type out changes nothing.
    easy = groups[("ior-easy-write", "all")]
    expect(easy["mape"] == easy["mape_type_out"], "ior-easy in-sample equals type-out", proc)
    expect(easy["target"] == 0.25 and groups[("ior-hard-write", "all")]["target"] == 0.4, "targets", proc)
    # The lock handoff is fitted on the 5 rows of locking types (3 lustre, spectrum-scale, cephfs; 5 families).
    # Leaving lustre out leaves 2 rows: fewer than 3, so no fit, and lustre's type-out predictions carry no
    # lock cost: never slower, and faster where the locks set the rate.
    expect(doc["fit"]["lock_rows"] == 5 and doc["fit"]["lock_handoff_s"] is not None, "lock handoff fitted", proc)
    rows = [r for r in doc["rows"] if r["phase"] == "ior-hard-write" and r["type"] == "lustre"]
    expect(len(rows) == 3 and all(r["predicted_type_out"] >= r["predicted"] for r in rows),
           "no lock cost is never slower", proc)
    expect(all(r["predicted_type_out"] > r["predicted"] for r in rows if r["bottleneck"] == "extent locks")
           and any(r["bottleneck"] == "extent locks" for r in rows), "lock-bound rows speed up without locks", proc)


def check_io_checkpoint():
    base = ["io", "--checkpoint", "--filesystem", "lustre-nvme-opa", "--format", "json"]
    proc = hpcsim(*base, "--clients", "128", "--procs", "1024", "--bytes-per-proc", "5GB")
    expect(proc.returncode == 0, "a checkpoint write", proc)
    doc = json.loads(proc.stdout)
    expect(doc["op"] == "write", "--checkpoint writes unless --op read", proc)
    # The slowest stage sets the rate: the servers' Omni-Path ports (100 Gb/s, 8,192-byte packets with 32 bytes
    # of headers), full. One file per OST in turn puts 43 files on 16 of the 24 servers and 42 on the rest;
    # the time is the fullest server's bytes over its port (plus one request's latency, well under 0.1 %).
    port = 12.5e9 * 8192 / 8224
    expect(doc["bottleneck"] == "server ports" and doc["utilisation"]["server ports"] > 0.999, "ports full", proc)
    expect(abs(doc["time_s"] - 43 * 5e9 / port) < 1e-3 * doc["time_s"], f"time {doc['time_s']}", proc)
    expect(all(u <= 1 + 1e-9 for u in doc["utilisation"].values()), "no stage above its capacity", proc)
    # 4 clients: their own ports are now the slowest stage.
    few = json.loads(hpcsim(*base, "--clients", "4", "--procs", "32", "--bytes-per-proc", "5GB").stdout)
    expect(few["bottleneck"] == "client ports", "4 clients are held to their ports")
    expect(abs(few["time_s"] - 32 * 5e9 / (4 * 12.5e9 * 8192 / 8224)) < 1e-3 * few["time_s"], "client-bound time")
    expect_bad_input(hpcsim(*base, "--bytes-per-proc", "0B"), "--bytes-per-proc 0B")
    expect_bad_input(hpcsim(*base, "--bytes-per-proc", "5 parsecs"), "--bytes-per-proc")
    expect_bad_input(hpcsim("io", "--checkpoint", "--bytes-per-proc", "1GB"), "--filesystem")


def check_io_files():
    """Whole small files read by many readers (a data loader's workers): on the disk Lustre each 109 KB file is
    one positioning of one disk, so 12 x 150 disks x 170 IOPS set the files per second; few readers are held
    to their own pace (an open, then the file behind a disk's 4.16 ms access); bad sizes are exit 2."""
    files = ["io", "--files", "--filesystem", "lustre-hdd-edr", "--format", "json"]
    base = files + ["--sample-size", "109KB"]
    proc = hpcsim(*base, "--clients", "16", "--procs", "2048")
    expect(proc.returncode == 0, "file reads", proc)
    doc = json.loads(proc.stdout)
    expect(doc["bottleneck"] == "device IOPS", f"the disks' positionings bind: {doc['bottleneck']}", proc)
    # (0.2 % below: the phase's rate counts its first requests' latency, over the GiB each reader is simulated for)
    expect(abs(doc["files_per_s"] - 12 * 150 * 170) < 5e-3 * doc["files_per_s"], f"files/s {doc['files_per_s']}", proc)
    expect(abs(doc["bytes_per_s"] - doc["files_per_s"] * 109e3) < 1e-6 * doc["bytes_per_s"], "bytes = files x size", proc)
    few = json.loads(hpcsim(*base, "--clients", "2", "--procs", "8").stdout)
    expect(few["bottleneck"] == "client requests" and few["files_per_s"] < 8 / 4.16e-3, f"readers' pace: {few}")
    expect_bad_input(hpcsim(*files, "--sample-size", "0B"), "--sample-size 0B")
    expect_bad_input(hpcsim(*files, "--sample-size", "5 parsecs"), "--sample-size 5 parsecs")
    expect_bad_input(hpcsim("io", "--files", "--filesystem", "lustre-hdd-edr"), "--sample-size")
    expect_bad_input(hpcsim("io", "--files", "--sample-size", "1MB"), "--filesystem")
    expect_bad_input(hpcsim("io", "--files", "--checkpoint", "--filesystem", "lustre-hdd-edr"), "--files")


def check_io_mlperf():
    base = ["io", "--mlperf", "--filesystem", "lustre-nvme-opa", "--format", "json"]
    proc = hpcsim(*base, "--workload", "unet3d", "--clients", "4")
    expect(proc.returncode == 0, "an MLPerf Storage run", proc)
    doc = json.loads(proc.stdout)
    for key in ["workload", "accelerator", "hosts", "au_min", "max_accelerators", "accelerators", "au",
                "throughput_MiBps", "samples_per_s", "delivered_MiBps", "read_threads", "host_cores", "host_MiBps",
                "host_clock_GHz", "open_MiBps", "bottleneck", "utilisation"]:
        expect(key in doc, f"missing JSON key {key}", proc)
    # unet3d on h100 asks 7 x 146,600,628 B per 0.323 s; 4 hosts of one Omni-Path port each bind, so the
    # largest count is their bytes over 90 % of one accelerator's ask, and its AU is at least 90 %.
    asked = 7 * 146600628 / 0.323
    ports = 4 * 12.5e9 * 8192 / 8224
    expect(doc["max_accelerators"] == int(ports / (0.9 * asked)), f"largest count {doc['max_accelerators']}", proc)
    expect(doc["accelerators"] == doc["max_accelerators"] and doc["au"] >= 0.9, "AU at the largest count", proc)
    expect(doc["bottleneck"] == "client ports", "the hosts' ports bind", proc)
    over = json.loads(hpcsim(*base, "--workload", "unet3d", "--clients", "4",
                             "--accelerators", str(doc["max_accelerators"] + 1)).stdout)
    expect(over["au"] < 0.9, "one more accelerator fails the threshold")
    few = json.loads(hpcsim(*base, "--workload", "resnet50", "--accelerator", "a100", "--clients", "2",
                            "--accelerators", "4").stdout)
    expect(few["au"] == 1 and abs(few["throughput_MiBps"] - 4 * 400 * 114660.07 / 0.435 / 2**20) < 1e-6 * few["throughput_MiBps"],
           "a light load runs at the asked rate")
    # The hosts' readers (--host-cores, --read-threads): unet3d's 4 default threads per accelerator cannot feed
    # an H100 at 90 % (npz decode on 4 cores), so nothing passes; 16 threads on 8 cores bind below the ports.
    starved = json.loads(hpcsim(*base, "--workload", "unet3d", "--clients", "4", "--host-cores", "32").stdout)
    expect(starved["max_accelerators"] == 0 and starved["bottleneck"] == "host readers" and starved["read_threads"] == 4,
           f"4 reader threads starve an H100: {starved}")
    fed = json.loads(hpcsim(*base, "--workload", "unet3d", "--clients", "4", "--host-cores", "8",
                            "--read-threads", "16").stdout)
    expect(0 < fed["max_accelerators"] < doc["max_accelerators"] and fed["bottleneck"] == "host readers"
           and fed["host_cores"] == 8 and fed["read_threads"] == 16, f"8 cores bind below the ports: {fed}")
    more = json.loads(hpcsim(*base, "--workload", "unet3d", "--clients", "4", "--host-cores", "256",
                             "--read-threads", "16").stdout)
    expect(more["max_accelerators"] == doc["max_accelerators"] and more["bottleneck"] == "client ports",
           f"with 256 cores the ports bind again: {more}")
    expect(doc["host_cores"] == 0 and doc["host_MiBps"] == 0, "without --host-cores the hosts are not modelled", proc)
    expect(doc["open_MiBps"] == 0, "lustre-nvme-opa gives no open rate: the opens are not a limit", proc)
    # --host-clock: the reader rate per cycle of the cores' base clock; a faster clock feeds more accelerators.
    slow = json.loads(hpcsim(*base, "--workload", "unet3d", "--clients", "4", "--host-cores", "8",
                             "--read-threads", "16", "--host-clock", "2.0GHz").stdout)
    fast = json.loads(hpcsim(*base, "--workload", "unet3d", "--clients", "4", "--host-cores", "8",
                             "--read-threads", "16", "--host-clock", "3.1GHz").stdout)
    expect(slow["host_clock_GHz"] == 2 and fast["host_clock_GHz"] == 3.1
           and abs(fast["host_MiBps"] / slow["host_MiBps"] - 1.55) < 1e-6
           and fast["max_accelerators"] > slow["max_accelerators"], f"the clock scales the readers: {slow} {fast}")
    expect_bad_input(hpcsim(*base, "--workload", "unet3d", "--host-clock", "2GHz"), "--host-clock")
    expect_bad_input(hpcsim(*base, "--workload", "unet3d", "--host-cores", "8", "--host-clock", "2GB"), "--host-clock")
    expect_bad_input(hpcsim(*base, "--workload", "unet3d", "--host-cores", "8", "--host-clock", "0GHz"), "--host-clock")
    expect_bad_input(hpcsim(*base, "--workload", "unet3d", "--host-cores", "0"), "--host-cores")
    expect_bad_input(hpcsim(*base, "--workload", "unet3d", "--read-threads", "-2"), "--read-threads")
    expect_bad_input(hpcsim("io", "--io500", "--filesystem", "lustre-nvme-opa", "--host-cores", "8"), "--host-cores")
    expect_bad_input(hpcsim(*base, "--workload", "bert"), "--workload")
    expect_bad_input(hpcsim(*base, "--workload", "unet3d", "--accelerator", "v100"), "--accelerator")
    expect_bad_input(hpcsim(*base), "--workload")
    expect_bad_input(hpcsim(*base, "--workload", "unet3d", "--clients", "4", "--accelerators", "3"), "--accelerators 3")
    expect_bad_input(hpcsim(*base, "--workload", "unet3d", "--procs", "8"), "--procs")
    expect_bad_input(hpcsim("io", "--mlperf", "--workload", "unet3d"), "--filesystem")
    expect_bad_input(hpcsim("io", "--io500", "--mlperf", "--filesystem", "lustre-nvme-opa"), "--mlperf")
    expect_bad_input(hpcsim("io", "--io500", "--filesystem", "lustre-nvme-opa", "--workload", "unet3d"), "--workload")


def check_io_mlperf_validate():
    cases = os.path.join(SOURCE, "tests", "data", "mlperf-storage-cases.yaml")
    proc = hpcsim("io", "--validate", "--mlperf", "--cases", cases, "--format", "json")
    expect(proc.returncode == 0, "io --validate --mlperf on the test cases", proc)
    doc = json.loads(proc.stdout)
    expect(doc["category"] == "mlperf-storage" and doc["cases"] == 4 and doc["scored_counts"] == 4, "4 cases", proc)
    rows = {r["case"]: r for r in doc["rows"]}
    # One AMD host of 64 cores, 8 reader threads per accelerator: the cores' npz decode binds below its NDR400
    # port (published: 16 on that port).
    iei = rows["iei-as13000-amd-unet3d-h100"]
    rate = doc["reader_MiBps_per_core"]["npz"]
    asked = 7 * 146600628 / 0.323 / 2**20
    expect(iei["predicted_accelerators"] == int(64 * rate / (0.9 * asked)) and iei["bottleneck"] == "host readers",
           f"IEI unet3d: {iei}", proc)
    # The rates are the geometric means over the cases of the format: throughput per host over busy cores.
    npz = [r for r in doc["rows"] if r["workload"].startswith("unet3d")]
    cores = {"ddn-ai400x2t-18clients-unet3d-h100": 20, "iei-as13000-amd-unet3d-h100": 64}
    import math
    mean = math.exp(sum(math.log(r["throughput_MiBps"] / r["hosts"] / cores[r["case"]]) for r in npz) / len(npz))
    expect(abs(rate - mean) < 1e-6 * mean, f"npz rate {rate} vs {mean}", proc)
    # Left out by submitter: each format's rate from the other submitter's rows (both have rows of each here).
    expect(doc["family_out_rows"] == 4 and all(r["predicted_accelerators_family_out"] >= 0 for r in doc["rows"]),
           "every row scored with its submitter left out", proc)
    ape_out = sum(abs(r["predicted_throughput_MiBps_family_out"] - r["throughput_MiBps"]) / r["throughput_MiBps"]
                  for r in doc["rows"])
    expect(abs(doc["throughput_mape_family_out"] - ape_out / 4) < 1e-9, "left-out MAPE over the rows", proc)
    ape = sum(abs(r["predicted_throughput_MiBps"] - r["throughput_MiBps"]) / r["throughput_MiBps"] for r in doc["rows"])
    expect(abs(doc["throughput_mape"] - ape / 4) < 1e-9, "MAPE over the rows", proc)
    expect(doc["within_step"] == sum(r["within_step"] for r in doc["rows"]), "within-step count", proc)
    expect_bad_input(hpcsim("io", "--validate", "--mlperf", "--cases", os.path.join(SOURCE, "tests", "data",
                                                                                    "io500-cases.yaml")), "workload")
    # Hostile host keys: file:line:column, exit 2.
    text = open(cases).read()
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for bad, where in [("  read_threads: 16\n", "  read_threads: 0\n"), ("    cores: 20\n", "    cores: -4\n"),
                           ("    cores: 20\n", "    cores: many\n"), ("    cores: 20\n", "    cores: 20\n    sockets: 2\n")]:
            path = os.path.join(tmp, "bad.yaml")
            with open(path, "w") as f:
                f.write(text.replace(bad, where, 1))
            line = text[:text.index(bad)].count("\n") + 1 + (1 if "sockets" in where else 0)
            expect_bad_input(hpcsim("io", "--validate", "--mlperf", "--cases", path), f"bad.yaml:{line}:")


run_check({"io500_phases": check_io500_phases, "io_checkpoint": check_io_checkpoint, "io_files": check_io_files, "io500_errors": check_io500_errors,
 "io500_validate": check_io500_validate, "io_mlperf": check_io_mlperf, "io_mlperf_validate": check_io_mlperf_validate,
 "io_json": check_io_json, "io_nfs_shared": check_io_nfs_shared, "io_striping": check_io_striping,
 "io_iops": check_io_iops, "io_deterministic": check_io_deterministic, "io_errors": check_io_errors})
