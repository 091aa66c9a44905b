#!/usr/bin/env python3
"""Express the public IO500 rows as hpcsim validation cases (docs/storage.md, "Mapping IO500 rows").

Reads ../shared/reference/storage/io500-public.yaml (or the path given) and writes
configs/validation/storage/io500.yaml (the expressible rows, each a file system described as hardware,
its clients and what was measured) and configs/validation/storage/io500-not-expressed.yaml (every other
row with the reason). The mapping rules are fixed here and documented in docs/storage.md; nothing in them
looks at a measured value.
"""
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent.parent / "shared/reference/storage/io500-public.yaml"
if not SOURCE.exists():
    SOURCE = pathlib.Path("/work/shared/reference/storage/io500-public.yaml")

# File-system type names as submitters wrote them -> hpcsim's type (the product or its base).
TYPES = [
    (r"^(lustre\S*|exascaler|ddn ai400x)$", "lustre"),
    (r"^(spectrum scale|gpfs|gridscaler|ibm storage scale.*|storage scale|ess)$", "spectrum-scale"),
    (r"^(beegfs|hpc-beegfs)$", "beegfs"),
    (r"^daos$", "daos"),
    (r"^(ime|just-ime)$", "ime"),
    (r"^(cephfs|suse enterprise storage.*)$", "cephfs"),
    (r"^orangefs$", "orangefs"),
    (r"^(wekafs|wekaio( matrix)?|weka)$", "wekafs"),
    (r"^vast$", "vast"),
    (r"^scale out nfs$", "nfs"),
    (r"^gekkofs$", "gekkofs"),
]

# Server network names -> configs/networks. A name without a generation or speed is not expressible.
NETWORKS = [
    (r"^(infiniband edr|edr infiniband|infiniband edr|ib edr|edr ib|ib-edr)$", "ib-edr"),
    (r"^(infiniband fdr|fdr infiniband)$", "ib-fdr"),
    (r"^(infiniband hdr|hdr infiniband)$", "ib-hdr"),
    (r"^omnipath$", "opa-100"),
    (r"^(ethernet 10gbps|10gbps ethernet)$", "eth-10g-tcp"),
    (r"^(ethernet 40gbps|40gbps ethernet)$", "eth-40g-tcp"),
    (r"^(ethernet 100gbps|100gbps ethernet)$", "eth-100g-tcp"),
]

# Device types -> configs/storage local device specs (the era's drives: IO500 lists of 2017-2019).
DEVICES = [
    (r"^(hdd|hd|nlsas|nl-sas[ ,]7\.2k hdd)$", "hdd-7200rpm"),
    (r"^(nvme|nvme ssd|nvme-ssd|ssd-nvme|nvme u\.2)$", "nvme-p4510"),
    (r"^(ssd|sata)$", "ssd-sata-pm883"),
]

# Metadata placement by design (docs/storage.md, "Types"): (distributes new directories, shards one directory).
DIRECTORIES = {
    "lustre": (False, False), "ime": (False, False), "beegfs": (True, False), "cephfs": (True, False),
    "spectrum-scale": (True, True), "orangefs": (True, True), "wekafs": (True, True), "vast": (True, True),
    "nfs": (True, True), "daos": (True, True), "gekkofs": (True, True),
}
LOCKING = {"lustre", "spectrum-scale", "cephfs"}
# Servers each written byte is stored on, by design: a Ceph pool keeps osd_pool_default_size = 3 copies
# (docs.ceph.com, "Pool, PG and CRUSH Config Reference"); the other types protect data inside a server.
REPLICAS = {"cephfs": 3}


def match(table, text):
    key = (text or "").strip().lower()
    for pattern, name in table:
        if re.match(pattern, key):
            return name
    return None


def as_count(value):
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def per_server_counts(rows):
    """Device counts each (system, institution, servers) is listed with: a row whose count is another row's
    count times the servers gave the total, not the count per server (the README: "varies by submitter")."""
    counts = {}
    for row in rows:
        key = (row.get("system"), row.get("institution"), row.get("data_server_nodes"))
        if as_count(row.get("data_storage_devices")):
            counts.setdefault(key, set()).add(row["data_storage_devices"])
    return counts


def device_type(row):
    """The device spec; an 'SSD' on an NVMe interface is an NVMe SSD (the row's own interface field)."""
    kind = (row.get("data_storage_type") or "").strip().lower()
    if kind == "ssd" and "nvme" in (row.get("data_storage_interface") or "").lower():
        return "nvme-p4510"
    return match(DEVICES, row.get("data_storage_type"))


def express(row, counts=None):
    """A case for the row, or the reason it cannot be one."""
    if row.get("dataset") != "io500-webpage-db":
        return None, "no server hardware in the row (submission data only)"
    fs_type = match(TYPES, row.get("filesystem_type"))
    if not fs_type and not (row.get("filesystem_type") or "").strip() and "weka" in (row.get("system") or "").lower():
        fs_type = "wekafs"  # the type left empty, the system named after the product
    if not fs_type:
        return None, f"file-system type '{row.get('filesystem_type')}' has no model"
    servers = as_count(row.get("data_server_nodes"))
    devices = as_count(row.get("data_storage_devices"))
    if not servers or not devices:
        return None, "data servers or devices not a count"
    listed = (counts or {}).get((row.get("system"), row.get("institution"), servers), set())
    if any(devices == d * servers for d in listed if d != devices):
        devices //= servers  # the row gave the total (same system listed elsewhere with the per-server count)
    device = device_type(row)
    if not device:
        return None, f"device type '{row.get('data_storage_type')}' is mixed or unknown"
    network = match(NETWORKS, row.get("data_server_network"))
    if not network:
        return None, f"server network '{row.get('data_server_network')}' names no generation or speed"
    mds = as_count(row.get("md_server_nodes")) or servers
    distributes, shards = DIRECTORIES[fs_type]
    data = {"count": servers, "ports": 1, "devices": devices, "device": device}
    if fs_type in REPLICAS and servers >= REPLICAS[fs_type]:
        data["replicas"] = REPLICAS[fs_type]
    if device == "hdd-7200rpm" and devices >= 10:
        data["targets"] = devices // 10
        data["protection"] = {"data": 8, "parity": 2}
    else:
        data["targets"] = devices
    fs = {
        "type": fs_type,
        "network": network,
        "data_servers": data,
        "metadata_servers": {"count": mds, "ops": 30000, "latency": "100 us",
                             "distributes_directories": distributes, "shards_directories": shards},
        "client": {"rpc_size": "1 MiB", "rpcs_in_flight": 8},
        "striping": {"count": 1, "size": "1 MiB"},
    }
    if fs_type in LOCKING:
        fs["lock_handoff"] = "1 ms"
    procs = row["client_procs"]
    nodes = row["client_nodes"]
    if not as_count(nodes) or not as_count(procs) or procs < nodes:
        return None, "client nodes or processes not counts"
    name = re.sub(r"[^a-z0-9]+", "-", f"io500-{row['list']}-{row['id']}-{row['system']}".lower()).strip("-")
    measured = {k: row[k] for k in ("ior_easy_write_GiBps", "ior_easy_read_GiBps", "ior_hard_write_GiBps",
                                    "ior_hard_read_GiBps", "mdtest_easy_write_kIOPS", "mdtest_hard_write_kIOPS")
                if isinstance(row.get(k), (int, float)) and row[k] > 0}
    return {"name": name, "family": row["institution"] or row["system"], "source": row["source"],
            "filesystem": fs, "clients": {"nodes": nodes, "procs": procs}, "measured": measured}, None


def main():
    rows = yaml.safe_load(SOURCE.read_text())
    counts = per_server_counts(rows)
    cases, skipped, seen = [], [], set()
    for row in rows:
        key = (row.get("system"), row.get("institution"), row.get("client_nodes"), row.get("client_procs"),
               row.get("ior_easy_write_GiBps"), row.get("ior_easy_read_GiBps"), row.get("ior_hard_write_GiBps"),
               row.get("mdtest_easy_write_kIOPS"), row.get("mdtest_hard_write_kIOPS"))
        label = f"{row.get('list', row.get('year'))} {row.get('id', row.get('submission'))} {row.get('system')}"
        if key in seen:
            skipped.append({"row": label, "reason": "a repeat of an earlier row (same system, clients and results)"})
            continue
        seen.add(key)
        case, reason = express(row, counts)
        if case:
            cases.append(case)
        else:
            skipped.append({"row": label, "reason": reason})
    head = ("# Generated by scripts/io500-cases.py from the public IO500 rows (../shared/reference/storage/\n"
            "# io500-public.yaml: IO500/webpage sql/2021-02-02-io500-db.sql @d2440084); mapping rules in\n"
            "# docs/storage.md. Do not edit by hand. Devices per server as the row gives them; one port per\n"
            "# server; clients on the servers' network; metadata ops and lock_handoff are fitted by\n"
            "# `hpcsim io --validate` (the values here are the starting points).\n")
    out = ROOT / "configs/validation/storage"
    out.mkdir(parents=True, exist_ok=True)
    (out / "io500.yaml").write_text(head + yaml.safe_dump({"cases": cases}, sort_keys=False, width=120))
    (out / "io500-not-expressed.yaml").write_text(
        "# IO500 rows that are not validation cases, with the reason (scripts/io500-cases.py).\n" +
        yaml.safe_dump({"rows": skipped}, sort_keys=False, width=120))
    print(f"{len(cases)} cases, {len(skipped)} rows not expressed")


if __name__ == "__main__":
    main()
