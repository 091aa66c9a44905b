#!/usr/bin/env python3
"""Draws the Gantt chart that `hpcsim schedule --gantt FILE` writes (Chrome trace-event JSON: one row per
node, one complete event per job and node) as a PNG: time left to right, one band per node top to bottom,
each job a colour of its own (killed jobs red), idle time white. Standard library only (zlib, struct).

Usage: scripts/gantt_png.py GANTT.json OUT.png [--width PIXELS] [--row PIXELS]
"""
import argparse
import json
import struct
import sys
import zlib


def colour(job_id):
    h = (job_id * 2654435761) & 0xFFFFFFFF  # a fixed hash: the same job, the same colour
    return (64 + (h & 0x7F), 64 + ((h >> 8) & 0x7F), 96 + ((h >> 16) & 0x7F))


def write_png(path, width, height, rows):
    raw = b"".join(b"\x00" + bytes(row) for row in rows)  # filter type 0 per scanline

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gantt")
    parser.add_argument("png")
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--row", type=int, default=0, help="pixels per node (default: fit 1000 pixels)")
    args = parser.parse_args()
    with open(args.gantt) as f:
        events = json.load(f)["traceEvents"]
    nodes = sorted({e["tid"] for e in events if e.get("name") == "thread_name"})
    jobs = [e for e in events if e.get("ph") == "X"]
    if not nodes or not jobs:
        print("nothing to draw", file=sys.stderr)
        return 1
    row_of = {n: i for i, n in enumerate(nodes)}
    t0 = min(e["ts"] for e in jobs)
    t1 = max(e["ts"] + e["dur"] for e in jobs)
    span = max(t1 - t0, 1e-9)
    row_px = args.row or max(1, 1000 // len(nodes))
    width, height = args.width, row_px * len(nodes)
    pixels = [bytearray(b"\xff" * (3 * width)) for _ in range(height)]
    for e in jobs:
        x0 = int((e["ts"] - t0) / span * (width - 1))
        x1 = max(x0 + 1, int((e["ts"] + e["dur"] - t0) / span * (width - 1)))
        rgb = (200, 30, 30) if e["args"].get("killed") else colour(int(e["args"]["id"]))
        band = bytes(rgb) * (x1 - x0)
        first = row_of[e["tid"]] * row_px
        for y in range(first, first + row_px):
            pixels[y][3 * x0:3 * x1] = band
            if row_px > 2 and y == first + row_px - 1:  # a thin line between nodes
                pixels[y][3 * x0:3 * x1] = b"\xe0" * (3 * (x1 - x0))
    write_png(args.png, width, height, pixels)
    print(f"{args.png}: {len(nodes)} nodes, {len(jobs)} job-node bars, {span / 1e6:.0f} s, {width}x{height}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
