#!/usr/bin/env python3
"""Draws the figures of `hpcsim report` from the CSVs it wrote: scaling.csv -> throughput.png and
scaling_efficiency.png, step_breakdown.csv -> step_breakdown.png, pareto.csv -> pareto.png,
checkpoint_interval.csv -> checkpoint_interval.png, app_scaling.csv -> app_time.png and app_efficiency.png,
serve_load.csv -> serve_latency.png, replay_time.csv -> replay_time.png (each only when its CSV is there). Usage: report_figures.py [--quiet-without-matplotlib] DIR. The same CSVs give the same PNG bytes (Agg backend, fixed
fonts and sizes, no metadata). Exit 3 when matplotlib is missing, so hpcsim can try another python3."""
import csv
import os
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import EngFormatter, FixedLocator, LogLocator, NullFormatter, NullLocator, PercentFormatter
except ImportError:
    # hpcsim passes --quiet-without-matplotlib when it has another python3 to try.
    if "--quiet-without-matplotlib" not in sys.argv:
        sys.stderr.write("report_figures.py: matplotlib is not installed for " + sys.executable + "\n")
    sys.exit(3)

# Fixed look, so a figure depends on its CSV alone.
matplotlib.rcParams.update({
    "figure.figsize": (8, 5), "figure.dpi": 100, "savefig.dpi": 150, "font.family": "DejaVu Sans",
    "font.size": 11, "axes.titlesize": 13, "axes.grid": True, "grid.alpha": 0.3, "legend.fontsize": 10,
    "svg.hashsalt": "hpcsim", "path.simplify": False,
})
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
NO_METADATA = {"Software": None}  # matplotlib would stamp its version into the PNG


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, format="png", metadata=NO_METADATA)
    plt.close(fig)


def lines_of(rows):
    """Scaling rows grouped by line, in file order."""
    lines = {}
    for r in rows:
        lines.setdefault(r["line"], []).append(r)
    return lines


def count_axis(ax, rows, column, label):
    """A log2 axis of GPU or node counts ticked at the counts run: scaling studies double them."""
    counts = sorted({float(r[column]) for r in rows})
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(counts))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{c:g}" for c in counts])
    ax.set_xlabel(f"{label} (count, log scale)")


def log_y_axis(ax, label):
    """A log y axis ticked at 1, 2 and 5 of each decade: a line spanning less than a decade still reads off it."""
    ax.set_yscale("log")
    ax.set_ylabel(label)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(EngFormatter(sep=" "))
    ax.yaxis.set_minor_formatter(NullFormatter())


def efficiency_axis(ax, values, label, ideal_label):
    """A percent axis from 0 to above the highest value (105 % at least), with 100 % dashed as the ideal."""
    ax.axhline(100, color="black", linestyle="--", linewidth=1, label=ideal_label)
    ax.set_ylabel(label)
    ax.yaxis.set_major_formatter(PercentFormatter())
    ax.set_ylim(0, max([105] + [v + 5 for v in values]))


def gpu_axis(ax, rows):
    count_axis(ax, rows, "gpus", "GPUs")


def plot_throughput(rows, path):
    # Tokens/s where every point has it (sequence models), samples/s otherwise.
    tokens = all(r["tokens_per_s"] for r in rows)
    column, unit = ("tokens_per_s", "tokens/s") if tokens else ("samples_per_s", "samples/s")
    fig, ax = plt.subplots()
    for i, (label, points) in enumerate(lines_of(rows).items()):
        ax.plot([float(p["gpus"]) for p in points], [float(p[column]) for p in points], label=label,
                color=COLOURS[i % len(COLOURS)], marker=MARKERS[i % len(MARKERS)], linewidth=2)
    gpu_axis(ax, rows)
    # Log-log: linear scaling is a straight line of slope 1 at any scale, and its loss shows as a bend.
    log_y_axis(ax, f"Throughput ({unit}, log scale)")
    ax.set_title("Training throughput against GPU count")
    ax.legend(title=rows[0]["line_keys"] or None)
    save(fig, path)


def plot_efficiency(rows, path):
    fig, ax = plt.subplots()
    for i, (label, points) in enumerate(lines_of(rows).items()):
        ax.plot([float(p["gpus"]) for p in points], [100 * float(p["scaling_efficiency"]) for p in points],
                label=label, color=COLOURS[i % len(COLOURS)], marker=MARKERS[i % len(MARKERS)], linewidth=2)
    efficiency_axis(ax, [100 * float(r["scaling_efficiency"]) for r in rows], "Scaling efficiency (%)",
                    "ideal (linear scaling)")
    gpu_axis(ax, rows)
    ax.set_title("Scaling efficiency: per-GPU throughput relative to the smallest GPU count", fontsize=12)
    ax.legend(title=rows[0]["line_keys"] or None)
    save(fig, path)


# MPI APPLICATIONS (kind: mpi) against node count: app_scaling.csv, one row per point. Each line's legend entry
# says whether it is strong or weak scaling (the work each run did, computed by hpcsim).
def app_label(points):
    kind = points[0]["scaling"]
    return f"{points[0]['line']} ({points[0]['app']}, {kind})" if kind != "unknown" else f"{points[0]['line']} ({points[0]['app']})"


def node_axis(ax, rows):
    count_axis(ax, rows, "nodes", "Nodes")


def plot_app_time(rows, path):
    fig, ax = plt.subplots()
    for i, (label, points) in enumerate(lines_of(rows).items()):
        nodes = [float(p["nodes"]) for p in points]
        times = [float(p["time_s"]) for p in points]
        colour = COLOURS[i % len(COLOURS)]
        ax.plot(nodes, times, label=app_label(points), color=colour, marker=MARKERS[i % len(MARKERS)], linewidth=2)
        # The ideal from the line's first point: time falling as 1/nodes (strong) or staying flat (weak).
        if points[0]["scaling"] in ("strong", "weak"):
            ideal = [times[0] * (nodes[0] / n if points[0]["scaling"] == "strong" else 1.0) for n in nodes]
            ax.plot(nodes, ideal, color=colour, linestyle=":", linewidth=1)
    node_axis(ax, rows)
    log_y_axis(ax, "Time to solution (s, log scale)")
    ax.set_title("MPI applications: time against node count (dotted: ideal)")
    ax.legend(title=rows[0]["line_keys"] or None)
    save(fig, path)


def plot_app_efficiency(rows, path):
    fig, ax = plt.subplots()
    values = []
    for i, (label, points) in enumerate(lines_of(rows).items()):
        if not all(p["efficiency"] for p in points):
            continue  # a line without a rate has no efficiency
        eff = [100 * float(p["efficiency"]) for p in points]
        values += eff
        ax.plot([float(p["nodes"]) for p in points], eff, label=app_label(points), color=COLOURS[i % len(COLOURS)],
                marker=MARKERS[i % len(MARKERS)], linewidth=2)
    efficiency_axis(ax, values, "Parallel efficiency (%)", "ideal")
    node_axis(ax, rows)
    ax.set_title("MPI applications: GFLOP/s per node relative to the smallest node count", fontsize=12)
    ax.legend(title=rows[0]["line_keys"] or None)
    save(fig, path)


# SERVING ENDPOINTS: serve_load.csv, one row per offered rate of a configuration; p99 solid, p50 dotted.
def plot_serve_latency(rows, path):
    fig, ax = plt.subplots()
    for i, (label, points) in enumerate(lines_of(rows).items()):
        rates = [float(p["rate_rps"]) for p in points]
        colour, marker = COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)]
        ax.plot(rates, [1e3 * float(p["p99_s"]) for p in points], label=f"{label} (p99)", color=colour, marker=marker,
                linewidth=2)
        ax.plot(rates, [1e3 * float(p["p50_s"]) for p in points], color=colour, linestyle=":", linewidth=1.5)
    ax.set_xlabel("Offered load (requests/s)")
    log_y_axis(ax, "Latency (ms, log scale)")
    ax.set_title("Serving: latency against load (dotted: p50)")
    ax.legend(title=rows[0]["line_keys"] or None)
    save(fig, path)


# MPI TRACE REPLAYS: replay_time.csv, one row per replay run; the mean rank's parts as a stacked bar, and
# beside it (hatched) the critical path's parts where the replay followed it.
REPLAY_PARTS = [("compute_s", "compute"), ("communication_s", "communication"), ("waiting_s", "waiting")]
PATH_PARTS = [("path_compute_s", "compute"), ("path_communication_s", "communication"), ("path_other_s", "other")]


def plot_replay_time(rows, path):
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(rows) + 3), 5.5))
    with_path = any(r["path_compute_s"] != "" for r in rows)
    width = 0.38 if with_path else 0.7
    offset = width / 2 if with_path else 0.0
    x = list(range(len(rows)))
    longest = max(float(r["time_s"]) for r in rows)
    scale, unit = (1.0, "s") if longest >= 1 else (1e3, "ms") if longest >= 1e-3 else (1e6, "us")
    bottom = [0.0] * len(rows)
    for i, (column, name) in enumerate(REPLAY_PARTS):
        heights = [scale * float(r[column]) for r in rows]
        ax.bar([v - offset for v in x], heights, bottom=bottom, width=width, color=COLOURS[i], label=f"mean rank: {name}")
        bottom = [b + h for b, h in zip(bottom, heights)]
    if with_path:
        bottom = [0.0] * len(rows)
        for i, (column, name) in enumerate(PATH_PARTS):
            heights = [scale * float(r[column]) if r[column] != "" else 0.0 for r in rows]
            ax.bar([v + offset for v in x], heights, bottom=bottom, width=width, color=COLOURS[i], hatch="//",
                   edgecolor="white", label=f"critical path: {name}")
            bottom = [b + h for b, h in zip(bottom, heights)]
    ax.set_xticks(x)
    ax.set_xticklabels([r["label"] for r in rows], rotation=35, ha="right", fontsize=9)
    ax.set_xlabel(rows[0]["label_keys"] or "Run")
    ax.set_ylabel(f"Simulated time ({unit})")
    ax.set_title("MPI trace replays: where the time went")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, path)


BREAKDOWN_PARTS = [("compute_s", "compute"), ("communication_exposed_s", "communication (exposed)"),
                   ("optimizer_s", "optimizer"), ("pipeline_bubble_s", "pipeline bubble"), ("io_stall_s", "I/O stall"),
                   ("other_s", "other")]


def plot_breakdown(rows, path):
    fig, ax = plt.subplots(figsize=(max(8, 0.7 * len(rows) + 3), 5.5))
    x = range(len(rows))
    bottom = [0.0] * len(rows)
    for i, (column, name) in enumerate(BREAKDOWN_PARTS):
        heights = [float(r[column]) for r in rows]
        if not any(heights):
            continue  # a part no bar has would only crowd the legend
        ax.bar(x, heights, bottom=bottom, label=name, color=COLOURS[i % len(COLOURS)], width=0.7)
        bottom = [b + h for b, h in zip(bottom, heights)]
    ax.set_xticks(list(x))
    ax.set_xticklabels([r["label"] for r in rows], rotation=35, ha="right", fontsize=9)
    ax.set_xlabel("Run (study point)")
    ax.set_ylabel("Time per training step (s)")
    ax.set_title("Step-time breakdown")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, path)


# THE PLAN'S PARETO FRONT. `hpcsim plan` (issue 14 item 3) stores its front as runs of kind "plan"; hpcsim
# writes pareto.csv (run_id,time_to_train_s,cost_usd,energy_kwh,label) from them. Rows: dicts with those keys.
def plot_pareto(rows, path):
    rows = sorted(rows, key=lambda r: float(r["time_to_train_s"]))
    hours = [float(r["time_to_train_s"]) / 3600 for r in rows]
    cost = [float(r["cost_usd"]) for r in rows]
    fig, ax = plt.subplots()
    ax.step(hours, cost, where="post", color="#7f7f7f", linewidth=1, label="Pareto front")
    if all(r["energy_kwh"] for r in rows):
        points = ax.scatter(hours, cost, c=[float(r["energy_kwh"]) for r in rows], cmap="viridis", s=50, zorder=3,
                            label="configuration (colour: energy)")
        fig.colorbar(points, ax=ax, label="Energy to train (kWh)")
    else:
        ax.scatter(hours, cost, color=COLOURS[0], s=50, zorder=3, label="configuration")
    # Each point says which configuration it is (nodes x node type, network, layout): the label on the side
    # of the point toward the middle, so it stays inside the axes.
    middle = (min(hours) + max(hours)) / 2
    for i, (x, y, r) in enumerate(zip(hours, cost, rows)):
        if r.get("label"):
            right = x > middle
            ax.annotate(r["label"], (x, y), xytext=(-8 if right else 8, 6 if i % 2 == 0 else -12),
                        textcoords="offset points", ha="right" if right else "left", fontsize=8, color="#333333")
    ax.set_xlabel("Time to train (h)")
    ax.set_ylabel("Cost (USD)")
    ax.yaxis.set_major_formatter(EngFormatter(sep=" "))
    ax.set_title("Plan: time to train against cost")
    ax.legend()
    save(fig, path)


# THE CHECKPOINT-INTERVAL TRADE-OFF (docs/resilience.md): checkpoint_interval.csv, one row per interval of a
# training run with failures. Top: time to train (mean, p5..p95 band); bottom: hours lost to checkpoints and to
# recomputation; Young's and Daly's optima as vertical lines on both.
def plot_interval(rows, path):
    rows = sorted(rows, key=lambda r: float(r["interval_s"]))
    x = [float(r["interval_s"]) for r in rows]
    day, hour = 86400.0, 3600.0
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 7), gridspec_kw={"height_ratios": [3, 2]})
    top.fill_between(x, [float(r["p5_s"]) / day for r in rows], [float(r["p95_s"]) / day for r in rows],
                     color=COLOURS[0], alpha=0.2, label="p5 .. p95 over replicas")
    top.plot(x, [float(r["time_to_train_s"]) / day for r in rows], color=COLOURS[0], marker="o", linewidth=2,
             label="mean")
    bottom.plot(x, [float(r["lost_checkpoint_s"]) / hour for r in rows], color=COLOURS[2], marker="s", linewidth=2,
                label="checkpoints")
    bottom.plot(x, [float(r["lost_recompute_s"]) / hour for r in rows], color=COLOURS[1], marker="^", linewidth=2,
                label="recomputation")
    best = min(rows, key=lambda r: float(r["time_to_train_s"]))
    top.scatter([float(best["interval_s"])], [float(best["time_to_train_s"]) / day], marker="*", s=250, zorder=4,
                color=COLOURS[3], label=f"simulated best ({float(best['interval_s']):.0f} s)")
    for ax in (top, bottom):
        for column, name, style in (("young_s", "Young", ":"), ("daly_s", "Daly", "--")):
            value = float(rows[0][column])
            ax.axvline(value, color="black", linestyle=style, linewidth=1,
                       label=f"{name} ({value:.0f} s)" if ax is top else None)
    top.set_xscale("log")
    top.set_ylabel("Time to train (days)")
    top.set_title(f"Checkpoint interval trade-off: {rows[0]['label']}")
    top.legend(fontsize=9)
    bottom.set_ylabel("Time lost (h)")
    bottom.set_xlabel("Checkpoint interval (s of compute, log scale)")
    bottom.legend(fontsize=9)
    save(fig, path)


FIGURES = [("scaling.csv", [(plot_throughput, "throughput.png"), (plot_efficiency, "scaling_efficiency.png")]),
           ("step_breakdown.csv", [(plot_breakdown, "step_breakdown.png")]),
           ("pareto.csv", [(plot_pareto, "pareto.png")]),
           ("checkpoint_interval.csv", [(plot_interval, "checkpoint_interval.png")]),
           ("app_scaling.csv", [(plot_app_time, "app_time.png"), (plot_app_efficiency, "app_efficiency.png")]),
           ("serve_load.csv", [(plot_serve_latency, "serve_latency.png")]),
           ("replay_time.csv", [(plot_replay_time, "replay_time.png")])]


def main():
    args = [a for a in sys.argv[1:] if a != "--quiet-without-matplotlib"]
    if len(args) != 1:
        sys.exit("usage: report_figures.py [--quiet-without-matplotlib] DIR")
    folder = args[0]
    for csv_name, plots in FIGURES:
        csv_path = os.path.join(folder, csv_name)
        if not os.path.exists(csv_path):
            continue
        rows = read_csv(csv_path)
        if not rows:
            continue
        for plot, png_name in plots:
            plot(rows, os.path.join(folder, png_name))


if __name__ == "__main__":
    main()
