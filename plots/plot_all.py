"""Draws the course's results: one set of figures per results folder, and comparisons across GPUs.

A results folder is any folder holding lesson CSVs (results/<gpu>/ from `make run-all`, or the
shipped results/reference/<gpu>/), with the meta.txt that `make run-all` writes and, from lesson
06, a timeline (06_overlap_pipeline_trace.csv).

usage: python3 plots/plot_all.py [--results DIR] [--out DIR] [--dpi N] [--lang en|zh]
Writes PNG and SVG files under --out and names each one; exits 1 with a one-line message when a
file cannot be read. With --lang zh the figures' words are Chinese (plots/zh.py); without a
Chinese font that exits 3 and says what to install.
"""
import argparse
import csv
import math
import pathlib
import re
import sys

import zh

COLUMNS = ("lesson,experiment,variant,direction,bytes,reps,median_ms,min_ms,max_ms,gbps,"
           "gpu,cc,driver,runtime,params").split(",")
TRACE_COLUMNS = "run,row,chunk,stream,start_us,duration_us,bytes".split(",")
TRACE_SUFFIX = "_trace.csv"  # lesson 06's timeline, written beside its results
EXERCISES_SUFFIX = "_exercises.csv"  # the exercises' answers: not measurements to draw
NUMERIC = {"bytes": int, "reps": int, "median_ms": float, "min_ms": float, "max_ms": float}
TRACE_ROWS = ("H2D copies", "kernels", "D2H copies", "CPU prepare", "CPU process")

# Solid lines and circles for host to device, dashed lines and squares for device to host;
# dotted, with the direction's marker, for copies made while the other direction copies too.
DIRECTION_STYLE = {"H2D": {"linestyle": "-", "marker": "o"},
                   "D2H": {"linestyle": "--", "marker": "s"}}
BOTH_AT_ONCE = ", both at once"


def line_style(variant, direction):
    style = dict(DIRECTION_STYLE[direction])
    if variant.endswith(BOTH_AT_ONCE):
        style["linestyle"] = ":"
    return style


# The figures are drawn at most about 9.5 inches wide, so that at the pages' 100 dpi (and shown
# 700-900 pixels wide) their smallest words, 11 points, stay about 12 pixels high.
STYLE = {"font.size": 12, "axes.titlesize": 13, "axes.labelsize": 12, "xtick.labelsize": 11,
         "ytick.labelsize": 11, "legend.fontsize": 11, "legend.title_fontsize": 11,
         "figure.titlesize": 14}
SMALL = 11  # the smallest text a figure writes, in points

# Names the results carry, as the English figures write them.
ENGLISH_NAMES = {"by_role": "by role", "write_combined": "write-combined"}

LANGUAGE = "en"  # of the figures' words: "zh" draws them in Chinese (main sets it from --lang)


def say(english, **values):
    """A label in the figures' language, its values filled in after the choice."""
    return (zh.LABELS[english] if LANGUAGE == "zh" else english).format(**values)


def name(english):
    """A name the results carry (memory kind, run, regime), in the figures' language."""
    if LANGUAGE == "zh":
        for pattern, chinese in zh.NAMES:
            found = pattern.match(english)
            if found:
                return chinese.format(*(name(group) for group in found.groups()))
        return english
    return re.sub(r"\w+", lambda word: ENGLISH_NAMES.get(word[0], word[0]), english)


class ResultsError(Exception):
    """A results file that cannot be read; the message names the file and the problem."""


# ---------------------------------------------------------------------------------- reading

def read_table(path, columns):
    try:
        with open(path, newline="") as f:
            table = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ResultsError(f"{path}: cannot read it ({e})") from None
    if not table or table[0] != columns:
        raise ResultsError(f"{path}: unexpected columns: the first line must be "
                           f"{','.join(columns)}")
    for line, cells in enumerate(table[1:], start=2):
        if len(cells) != len(columns):
            raise ResultsError(f"{path}:{line}: {len(cells)} fields, want {len(columns)}")
        yield line, dict(zip(columns, cells))


def read_rows(path):
    rows = []
    for line, row in read_table(path, COLUMNS):
        try:
            for key, kind in NUMERIC.items():
                row[key] = kind(row[key])
            row["gbps"] = float(row["gbps"]) if row["gbps"] else None
            row["params"] = {k: parse_number(v) for k, _, v in
                             (p.partition("=") for p in row["params"].split(";") if "=" in p)}
        except ValueError as e:
            raise ResultsError(f"{path}:{line}: {e}") from None
        rows.append(row)
    return rows


def read_trace(path):
    operations = []
    for line, row in read_table(path, TRACE_COLUMNS):
        try:
            operations.append({"run": row["run"], "row": row["row"], "chunk": int(row["chunk"]),
                               "start_ms": float(row["start_us"]) / 1e3,
                               "duration_ms": float(row["duration_us"]) / 1e3})
        except ValueError as e:
            raise ResultsError(f"{path}:{line}: {e}") from None
    return operations


def parse_number(text):
    try:
        return float(text)
    except ValueError:
        return text


def read_meta(path):
    if not path.exists():
        return {}
    meta = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition(":")
        if sep:
            meta[key.strip()] = value.strip()
    return meta


class ResultSet:
    """The rows, timeline and metadata of one results folder: one GPU."""

    def __init__(self, folder):
        self.folder = folder
        self.rows, self.trace = [], []
        for path in sorted(folder.glob("*.csv")):
            if path.name.endswith(EXERCISES_SUFFIX):
                continue
            if path.name.endswith(TRACE_SUFFIX):
                self.trace.extend(read_trace(path))
            else:
                self.rows.extend(read_rows(path))
        self.meta = read_meta(folder / "meta.txt")
        gpu = self.meta.get("gpu") or (self.rows[0]["gpu"] if self.rows else folder.name)
        self.slug = re.sub(r"[^a-z0-9]+", "-", (gpu + (" (reference)" if "reference" in
                                                       folder.parts else "")).lower()).strip("-")
        self.label = gpu + (say(" (reference)") if "reference" in folder.parts else "")
        self.date = self.meta.get("date", "")[:10]
        # Another process used the GPU during some measurement: every figure of it says so.
        if any(r["params"].get("contended") == 1 for r in self.rows):
            self.label += say(" (CONTENDED: the GPU was shared during the run)")

    def select(self, **match):
        return [r for r in self.rows if all(r[k] == v for k, v in match.items())]

    def pcie_peak_gbps(self):
        """The usable link's bandwidth per direction, as lesson 04 found it and wrote it into its
        bandwidth rows."""
        peaks = [r["params"]["peak_gbps"] for r in self.select(lesson="04_pinned_memory")
                 if "peak_gbps" in r["params"]]
        return peaks[0] if peaks else None

    def title(self, what):
        return f"{what}\n{self.label}" + (f", {self.date}" if self.date else "")


def find_result_sets(root):
    """Every results folder under root but the lab preset's (`make run-all LAB=1`), whose smaller
    sizes would stand beside other GPUs' default runs as if they were comparable."""
    folders = sorted({p.parent for p in root.rglob("*.csv")})
    return [ResultSet(folder) for folder in folders
            if not read_meta(folder / "meta.txt").get("mode", "").startswith("lab")]


# ------------------------------------------------------------------------------ helpers

def binary_size(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024:
            return f"{n:g} {unit}"
        n /= 1024
    return f"{n:g} PiB"


def size_axis(ax, sizes):
    ax.set_xscale("log", base=2)
    ticks = sorted(set(sizes))
    ax.set_xticks(ticks)
    ax.set_xticklabels([binary_size(s) for s in ticks], rotation=45, ha="right")
    ax.set_xlabel(say("transfer size (binary units)"))


def text_width(text):
    """In widths of a Latin letter: a Chinese character takes two."""
    return sum(2 if "\u2e80" <= c <= "\uffef" else 1 for c in text)


def save(plt, fig, stem, layout=True):
    """Writes the figure as PNG and SVG; layout=False where the caller laid it out itself, and
    the saved picture is then cropped to what was drawn."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    if layout:
        fig.tight_layout()
    for suffix in (".png", ".svg"):
        fig.savefig(stem.with_suffix(suffix), bbox_inches=None if layout else "tight")
    plt.close(fig)
    return stem.with_suffix(".png")


# ----------------------------------------------------------------------- bandwidth (01, 04)

def bandwidth_series(result_set):
    """{(lesson, variant, direction): [(bytes, GB/s), ...]} for every bandwidth sweep; the
    both-at-once sweep's directions are labelled as such."""
    series = {}
    for experiment in ("bandwidth", "bandwidth_bidirectional"):
        for r in result_set.select(experiment=experiment):
            if r["direction"] == "both":
                continue  # the sum of the two directions: a different quantity
            variant = r["variant"] + (BOTH_AT_ONCE if experiment != "bandwidth" else "")
            key = (r["lesson"], variant, r["direction"])
            series.setdefault(key, []).append((r["bytes"], r["gbps"]))
    return {k: sorted(v) for k, v in series.items()}


def coincide(a, b, tolerance):
    """Whether two series, [(x, y), ...], draw as one line: the same x, every y within
    tolerance; the largest difference, or None."""
    if [x for x, _ in a] != [x for x, _ in b]:
        return None
    gap = max(abs(ya - yb) for (_, ya), (_, yb) in zip(a, b))
    return gap if gap <= tolerance else None


def merge_coinciding(series, tolerance):
    """[(keys, the largest difference within them), ...]: series, {key: {part: points}},
    grouped where every part of one coincides with the same part of the group's first."""
    groups = []
    for key, parts in series.items():
        for group in groups:
            first = series[group[0][0]]
            gaps = [coincide(first[p], parts[p], tolerance) if p in first else None
                    for p in parts]
            if first.keys() == parts.keys() and None not in gaps:
                group[0].append(key)
                group[1] = max(group[1], *gaps)
                break
        else:
            groups.append([[key], 0.0])
    return groups


def merged_label(labels, gap=None):
    """The legend entry of lines drawn as one: each name, and how far apart they are (GB/s)."""
    if len(labels) == 1:
        return labels[0]
    return "\n≈ ".join(labels) + ("" if gap is None else say(" (within {gbps:.1f} GB/s)",
                                                               gbps=gap))


def plot_bandwidth(plt, result_set, out):
    series = bandwidth_series(result_set)
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(9.5, 6.4))
    best = max(y for points in series.values() for _, y in points)
    peak = result_set.pcie_peak_gbps()
    top = max(best, peak or 0) * 1.15
    # One colour per lesson and memory kind, the line style telling the direction; kinds whose
    # lines would lie on one another (within 1.5% of the axis) draw one line and share an entry.
    kinds = {}
    for (lesson, variant, direction), points in sorted(series.items()):
        kinds.setdefault((lesson, variant), {})[direction] = points
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    sizes, handles = [], []
    lessons = {variant: {l for l, v in kinds if v == variant} for _, variant in kinds}
    for i, (group, gap) in enumerate(merge_coinciding(kinds, 0.015 * top)):
        lesson, variant = group[0]
        for direction, points in sorted(kinds[group[0]].items()):
            x, y = zip(*points)
            sizes += x
            line, = ax.plot(x, y, color=palette[i % len(palette)],
                            **line_style(variant, direction))
        label = " ≈ ".join(name(v) for _, v in group)
        if lesson == "01_sync_copy":  # not 04's throughput: one call, its CPU's wait
            label = say("{kinds} (01: each a blocking call, host clock)", kinds=label)
        elif any(len(lessons[v]) > 1 for _, v in group):  # which lesson's, where two have one
            label = say("{kinds} ({lesson})", kinds=label, lesson=lesson)
        if len(group) > 1:
            label += say(" (within {gbps:.1f} GB/s)", gbps=gap)
        handles.append((line, label))
    for direction, style in DIRECTION_STYLE.items():
        handles.append((ax.plot([], [], color="black", **style)[0], direction))
    ax.axhline(best, color="grey", linestyle="--", linewidth=1)
    ax.annotate(say("best measured {gbps:.1f} GB/s", gbps=best), (min(sizes), best), xytext=(0, 4),
                textcoords="offset points", color="grey")
    if peak:
        ax.axhline(peak, color="black", linestyle=":", linewidth=1)
        ax.annotate(say("PCIe peak {gbps:.1f} GB/s per direction", gbps=peak), (min(sizes), peak),
                    xytext=(0, 4), textcoords="offset points")
    size_axis(ax, sizes)
    ax.set_ylabel(say("bandwidth (GB/s, 1 GB = 1e9 bytes)"))
    ax.set_ylim(bottom=0, top=top)
    ax.set_title(result_set.title(say("Copy bandwidth by transfer size (median; solid H2D, "
                                      "dashed D2H, dotted: both ways at once)")))
    ax.grid(True, alpha=0.3)
    ax.legend(*zip(*handles), loc="upper center", bbox_to_anchor=(0.5, -0.24), ncol=2,
              frameon=False)
    return save(plt, fig, out / result_set.slug / "bandwidth")


# ------------------------------------------------------------------------- alignment (04)

def alignment_panel(row):
    """The panel an alignment row belongs to: its memory kind, and which side was offset."""
    return ("pinned, device" if row["params"].get("side") == "device" else row["variant"],
            row["direction"])


def alignment_ratios(result_set):
    """{(panel, direction): {offset: [(bytes, speed at offset / speed at offset 0), ...]}},
    each ratio the median of the ratios taken repetition by repetition (params `ratio`); results
    from before those were written get the ratio of the medians."""
    rows = result_set.select(experiment="alignment")
    rate0 = {alignment_panel(r) + (r["bytes"],): r["gbps"] for r in rows
             if r["params"]["offset"] == 0}
    ratios = {}
    for r in rows:
        key = alignment_panel(r)
        ratio = r["params"].get("ratio") or r["gbps"] / rate0[key + (r["bytes"],)]
        ratios.setdefault(key, {}).setdefault(int(r["params"]["offset"]), []).append(
            (r["bytes"], ratio))
    return {k: {o: sorted(points) for o, points in v.items()} for k, v in ratios.items()}


def plot_alignment(plt, result_set, out):
    """Lecture 7.2's claim: copies from and to 256-byte aligned host addresses are fastest."""
    ratios = alignment_ratios(result_set)
    if not ratios:
        return None
    panels = [(k, d) for k in ("pinned", "pageable", "pinned, device") for d in ("H2D", "D2H")
              if (k, d) in ratios]
    columns = min(len(panels), 2)
    rows = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(9.5, 1.8 + 3.3 * rows), sharey=True,
                             squeeze=False)
    for ax, key in zip(axes.flat, panels):
        sizes = []
        for offset, points in sorted(ratios[key].items()):
            x, y = zip(*points)
            sizes += x
            aligned = offset % 256 == 0
            ax.plot(x, y, linestyle="-" if aligned else "--", marker="o" if aligned else "x",
                    label=say("+{offset} B (256-aligned)" if aligned else "+{offset} B",
                              offset=offset))
        ax.axhline(1, color="grey", linewidth=1)
        size_axis(ax, sizes)
        if ax not in axes[-1]:
            ax.set_xlabel("")
        ax.set_title(say("{kind} {direction}, the device address offset", kind=name("pinned"),
                         direction=key[1]) if key[0] == "pinned, device" else
                     say("{kind} {direction}", kind=name(key[0]), direction=key[1]))
        ax.grid(True, alpha=0.3)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for row in axes:
        row[0].set_ylabel(say("speed at the offset / at offset 0\n(in the same repetition; "
                              "median)"))
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, title=say("offset of the address"),
               frameon=False)
    fig.suptitle(result_set.title(say(
        "Copy speed at an address offset from an aligned one, relative to offset 0\n"
        "(lecture 7.2 predicts dashed lines, unaligned, below 1, pinned most)")))
    fig.tight_layout(rect=(0, 0.06 + 0.04 * (3 - rows), 1, 1))
    return save(plt, fig, out / result_set.slug / "alignment", layout=False)


# --------------------------------------------------------------------- phases (01 and 05)

def phase_bars(result_set):
    """[(label, [(what the CPU was doing, ms), ...]), ...] from lessons 01 and 05, and what
    the synchronous runs of the two say side by side (or "")."""
    bars, sync = [], {}
    host = {r["variant"]: r for r in result_set.select(lesson="01_sync_copy", experiment="phases")
            if r["params"].get("clock") == "host"}
    if all(p in host for p in ("h2d", "kernel", "d2h")):
        size = binary_size(host["d2h"]["bytes"])
        bars.append((say("01 synchronous\npageable, {size}\nper vector", size=size),
                     [(f"blocked: {p}", host[p]["median_ms"]) for p in ("h2d", "kernel", "d2h")]))
        sync["01"] = (host["d2h"]["bytes"], sum(host[p]["median_ms"] for p in ("h2d", "kernel",
                                                                             "d2h")))
    demo = {r["variant"]: r for r in result_set.select(lesson="05_raii_style_c",
                                                       experiment="demo")}
    if all(v in demo for v in ("sync_total", "async_total", "cpu_work", "final_wait")):
        size = binary_size(demo["sync_total"]["bytes"] // 3)
        bars.append((say("05 synchronous\npinned, {size}\nper vector", size=size),
                     [("blocked: copies + kernel", demo["sync_total"]["median_ms"])]))
        sync["05"] = (demo["sync_total"]["bytes"] // 3, demo["sync_total"]["median_ms"])
        cpu, wait = demo["cpu_work"]["median_ms"], demo["final_wait"]["median_ms"]
        issuing = max(demo["async_total"]["median_ms"] - cpu - wait, 0)
        bars.append((say("05 asynchronous\npinned, {size}\nper vector", size=size),
                     [("issuing: calls", issuing), ("free: CPU work", cpu),
                      ("blocked: final wait", wait)]))
    note = ""
    if len(sync) == 2:
        (bytes01, ms01), (bytes05, ms05) = sync["01"], sync["05"]
        note = say("05 moves {times:.0f}x the data of 01 in {ratio:.2f}x the time: pinned memory "
                   "(lesson 04)", times=bytes05 / bytes01, ratio=ms05 / ms01)
    return bars, note


PHASE_KINDS = {"blocked": ("tab:red", "blocked in CUDA calls"),
               "free": ("tab:green", "free for the CPU's own work"),
               "issuing": ("tab:grey", "issuing the calls")}


def fits(fig, ax, text, left, width):
    """Whether text, drawn, lies within the bar from left to left + width (data units)."""
    extent = text.get_window_extent(fig.canvas.get_renderer())
    x0, x1 = ax.transData.transform([(left, 0), (left + width, 0)])[:, 0]
    return extent.width + 6 < x1 - x0


def plot_phases(plt, result_set, out):
    """Where the CPU's time goes: blocked in CUDA calls, or free for its own work."""
    bars, note = phase_bars(result_set)
    if not bars:
        return None
    fig, ax = plt.subplots(figsize=(9.5, 2.8 + 1.15 * len(bars)))
    total = max(sum(ms for _, ms in parts) for _, parts in bars)
    widths = {}
    for y, (label, parts) in enumerate(bars):
        start = 0.0
        for what, ms in parts:
            kind = what.split(": ")[0]
            widths[kind] = widths.get(kind, 0) + ms
            ax.barh(y, ms, left=start, color=PHASE_KINDS[kind][0], edgecolor="white")
            start += ms
    # One legend entry per kind of time, saying so where its bars are too thin to see.
    for kind, ms in widths.items():
        colour, meaning = PHASE_KINDS[kind]
        thin = say(" ({ms:.2f} ms: too thin to see)", ms=ms) if ms < 0.01 * total else ""
        ax.barh(0, 0, color=colour, label=say(meaning) + thin)
    ax.set_yticks(range(len(bars)))
    ax.set_yticklabels([label for label, _ in bars])
    ax.invert_yaxis()
    ax.set_xlabel(say("time as the CPU saw it (ms, host clock, median)"))
    ax.set_title(result_set.title(say("Where the CPU's time goes: c = a + b, lessons 01 and 05") +
                                  (say("\n({note})", note=note) if note else "")))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    # Each part's name and time inside its bar where they fit, else after the bar with its total;
    # the axis long enough for what is written after the bars. Both depend on the scale: settled
    # in a few rounds.
    outside, limit, texts = set(), 1.05 * total, []
    for _ in range(5):
        for text in texts:
            text.remove()
        texts, after, moved = [], [], len(outside)
        ax.set_xlim(0, limit)
        fig.tight_layout()
        for y, (label, parts) in enumerate(bars):
            start, beside = 0.0, []
            for what, ms in parts:
                part = say(what.split(": ")[1])
                if (y, what) in outside:
                    beside.append(say("{name} {ms:.2g}", name=part, ms=ms))
                else:
                    text = ax.text(start + ms / 2, y, say("{name}\n{ms:.1f} ms", name=part,
                                                          ms=ms),
                                   ha="center", va="center", color="white", fontweight="bold")
                    texts.append(text)
                    if not fits(fig, ax, text, start, ms):
                        outside.add((y, what))
                start += ms
            text = ax.text(start + 0.01 * limit, y, say("{ms:.1f} ms", ms=start) + (
                say("\n({parts} ms)", parts=", ".join(beside)) if beside else ""),
                va="center", fontsize=SMALL)
            texts.append(text)
            after.append((start, text))
        renderer = fig.canvas.get_renderer()
        width = ax.get_window_extent(renderer).width
        # The bar's end at end / limit of the axis, its text after it: limit >= end * width /
        # (width - the text's width).
        needed = max(end * width / max(width - t.get_window_extent(renderer).width - 12, 1)
                     for end, t in after)
        if needed <= limit and len(outside) == moved:
            break
        limit = max(limit, needed * 1.02)
    return save(plt, fig, out / result_set.slug / "phases")


# ------------------------------------------------------------------------- pipeline (06)

BUSY = (("h2d_busy", "H2D copies"), ("kernels_busy", "kernels"), ("d2h_busy", "D2H copies"),
        ("all_three_busy", "all three at once"), ("cpu_busy", "CPU copying"),
        ("all_four_busy", "all four at once"))


def busy_shares(result_set):
    """{run key: {busy variant: share of the run's span}} from lesson 06's timeline rows."""
    shares = {}
    for r in result_set.select(lesson="06_overlap_pipeline", experiment="timeline"):
        shares.setdefault(r["params"]["run"], {})[r["variant"]] = r["params"]["share"]
    return shares


def plot_busy(ax, shares):
    """Under the Gantt chart: the share of each run's span each kind of work was running, a table
    of kinds by runs, each cell saying its share."""
    runs = list(shares)  # the order of the Gantt charts
    grid = [[100 * shares[run].get(variant, 0) for run in runs] for variant, _ in BUSY]
    ax.imshow(grid, cmap="Blues", vmin=-20, vmax=130, aspect="auto")
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            ax.text(j, i, f"{value:.0f}%", ha="center", va="center", fontsize=SMALL,
                    color="white" if value > 70 else "black")
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels([name(run) for run in runs])
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.set_yticks(range(len(BUSY)))
    ax.set_yticklabels([say(label) for _, label in BUSY])
    ax.set_xlabel(say("busy: share of the run's span with at least one such operation running "
                      "(%)"))


def plot_timeline(plt, result_set, out):
    """Lesson 06's timeline: a Gantt chart per run, on one time axis, bars coloured by chunk;
    under it, how busy each run kept each kind of engine."""
    runs = list(dict.fromkeys(op["run"] for op in result_set.trace))
    if not runs:
        return None
    chunks = max(op["chunk"] for op in result_set.trace) + 1
    cmap = plt.get_cmap("viridis")
    shares = busy_shares(result_set)
    heights = [0.35 + 0.26 * len({op["row"] for op in result_set.trace if op["run"] == run})
               for run in runs]
    busy_height = 0.9 + 0.3 * len(BUSY)
    fig = plt.figure(figsize=(9.5, 1.2 + sum(heights) + 0.5 * len(runs) +
                              (busy_height if shares else 0)), layout="constrained")
    grid = fig.add_gridspec(len(runs) + bool(shares), 1,
                            height_ratios=heights + ([busy_height] if shares else []))
    gantt = [fig.add_subplot(grid[0])]
    gantt += [fig.add_subplot(grid[i], sharex=gantt[0]) for i in range(1, len(runs))]
    for ax, run in zip(gantt, runs):
        rows = [row for row in TRACE_ROWS
                if any(op["run"] == run and op["row"] == row for op in result_set.trace)]
        for y, row in enumerate(rows):
            ops = [op for op in result_set.trace if op["run"] == run and op["row"] == row]
            ax.broken_barh([(op["start_ms"], op["duration_ms"]) for op in ops], (y - 0.4, 0.8),
                           facecolors=[cmap(op["chunk"] / max(chunks - 1, 1)) for op in ops],
                           edgecolor="white", linewidth=0.3)
        end = max(op["start_ms"] + op["duration_ms"] for op in result_set.trace
                  if op["run"] == run)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([say(row) for row in rows])
        ax.invert_yaxis()
        ax.set_title(say("{run}: {ms:.1f} ms", run=name(run), ms=end), loc="left", fontsize=12)
        ax.grid(True, axis="x", alpha=0.3)
    for ax in gantt[:-1]:
        ax.tick_params(labelbottom=False)
    gantt[-1].set_xlabel(say("time on the GPU (ms, from each run's first operation)"))
    colourbar = fig.colorbar(plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, chunks - 1)),
                             ax=gantt, pad=0.01)
    colourbar.set_label(say("chunk"))
    if shares:
        plot_busy(fig.add_subplot(grid[len(runs)]), shares)
    fig.suptitle(result_set.title(say("06_overlap_pipeline: copies and kernels as CUPTI recorded "
                                      "them")))
    # The layout is the figure's own (constrained, which fits the shared colour bar).
    return save(plt, fig, out / result_set.slug / "timeline_06", layout=False)


def plot_efficiency_heatmap(plt, result_set, out):
    """Lesson 06's shapes, each coloured by the floor across shapes over its time: 1 would be as
    fast as any shape's copies (or kernels) alone. Ranked by time, not by each shape's overlap
    against its own halves, which a slow shape can score well on."""
    rows = result_set.select(lesson="06_overlap_pipeline", experiment="sweep_shape")
    times = {(int(r["params"]["chunks"]), int(r["params"]["streams"])): r["median_ms"]
             for r in rows if r["variant"] == "depth_first"}
    if not times:
        return None
    # Results from before the floor had its row: the same floor, from the shapes' own halves.
    floor = next((r["median_ms"] for r in rows if r["variant"] == "floor_across_shapes"),
                 max(min(r["median_ms"] for r in rows if r["variant"] == half)
                     for half in ("copies_only", "kernels_only")))
    chunks = sorted({c for c, _ in times})
    streams = sorted({s for _, s in times})
    grid = [[floor / times[(c, s)] if (c, s) in times else float("nan")
             for s in streams] for c in chunks]
    fastest = min(times, key=times.get)
    fig, ax = plt.subplots(figsize=(8, 6.5))
    image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for i, c in enumerate(chunks):
        for j, s in enumerate(streams):
            if (c, s) in times:
                ax.text(j, i, f"{times[(c, s)]:.2f}\n{grid[i][j]:.2f}", ha="center",
                        va="center", color="black" if grid[i][j] > 0.6 else "white",
                        fontsize=10, fontweight="bold" if (c, s) == fastest else "normal")
    ax.set_xticks(range(len(streams)))
    ax.set_xticklabels(streams)
    ax.set_yticks(range(len(chunks)))
    ax.set_yticklabels(chunks)
    ax.set_xlabel(say("streams (= device buffers)"))
    ax.set_ylabel(say("chunks"))
    fig.colorbar(image, ax=ax, label=say("floor across shapes / time"))
    ax.set_title(result_set.title(say(
        "06: time by shape (ms, the fastest in bold) and floor / time\n"
        "floor across shapes {floor:.2f} ms; {size}, x = a x + c {iters:g} times per element",
        floor=floor, size=binary_size(rows[0]["bytes"] // 2), iters=rows[0]["params"]["iters"])))
    return save(plt, fig, out / result_set.slug / "efficiency_06")


def intensity_axis(ax, iters):
    """A log axis labelled at the sweep's powers of 4: the balance point and twice it, between
    them, would print over their neighbours (1024 and 1255)."""
    ax.set_xscale("log", base=2)
    ticks = [i for i in sorted(set(iters)) if i >= 1 and math.log(i, 4).is_integer()]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{i:g}" for i in ticks])


def intensity_points(result_set):
    """[(iterations, speed-up over serial, the most a pipeline could get: serial over its
    floor, or None in results from before the floor was measured), ...]."""
    rows = result_set.select(lesson="06_overlap_pipeline", experiment="sweep_intensity")
    by_iters = {}
    for r in rows:
        by_iters.setdefault(r["params"]["iters"], {})[r["variant"]] = r
    points = []
    for iters, row in sorted(by_iters.items()):
        if {"depth_first", "serial_pinned"} <= row.keys():
            pipeline, serial = row["depth_first"], row["serial_pinned"]["median_ms"]
            floor = pipeline["params"].get("floor_ms")
            points.append((iters, serial / pipeline["median_ms"], floor and serial / floor))
    return points


def regime_points(result_set):
    """[(iterations, speed-up over serial), ...] of the three regimes: what the comparison draws
    for a run without the intensity sweep (the classroom run)."""
    rows = result_set.select(lesson="06_overlap_pipeline", experiment="regimes",
                             variant="depth_first")
    return sorted((r["params"]["iters"], r["params"]["speedup_serial"]) for r in rows
                  if "speedup_serial" in r["params"])


def plot_intensity(plt, result_set, out):
    points = intensity_points(result_set)
    if not points:
        return None
    iters, speedup, ceiling = zip(*points)
    fig, ax = plt.subplots(figsize=(9.5, 6))
    floored = None not in ceiling
    if floored:
        ax.plot(iters, ceiling, color="black", linestyle="--", marker="",
                label=say("ceiling: serial time / the floor, the slower of these kernels\n"
                          "alone and the fastest copies alone of any shape"))
    ax.plot(iters, speedup, color="tab:blue", marker="o",
            label=say("pipeline: serial time / pipeline"))
    intensity_axis(ax, iters)
    ax.set_xlabel(say("kernel iterations per element (arithmetic intensity)"))
    ax.set_ylabel(say("speed-up over one stream, one buffer (x)"))
    ax.set_ylim(bottom=0, top=max(ceiling if floored else speedup) * 1.2)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left")
    ax.set_title(result_set.title(say("06: what overlap buys, from copy-bound to compute-bound")))
    return save(plt, fig, out / result_set.slug / "intensity_06")


def plot_staged(plt, result_set, out):
    """Lesson 06 part 5: data in pageable memory through pinned staging buffers, throughput by
    CPU threads, copied with memcpy and the faster way, against the host's ceiling (both sides
    at once), the driver's own path and data already pinned."""
    rows = result_set.select(lesson="06_overlap_pipeline", experiment="staged")
    staged = [r for r in rows if r["variant"] == "staged"]
    if not staged:
        return None
    fig, ax = plt.subplots(figsize=(9.5, 7.5))
    threads = sorted({int(r["params"]["threads"]) for r in staged})
    top = 1.15 * max(r["gbps"] for r in rows if r["gbps"])  # the ceiling in view
    # Lines that would lie on one another (within 1.5% of the axis) are drawn once, their
    # legend entry naming each.
    tolerance = 0.015 * top
    copies = sorted({r["params"].get("copies", "memcpy") for r in staged},
                    key=lambda c: c != "memcpy")
    rising, points = {}, {}
    for i, way in enumerate(copies):
        for variant, label, marker, style in (
                ("staged", "staged pipeline, {copies}", "o", "-"),
                ("sides_at_once", "both sides at once, {copies}", "d", ":"),
                ("cpu_alone", "its CPU copies alone, {copies}", "s", "--")):
            found = sorted((r["params"]["threads"], r["bytes"] / r["median_ms"] / 1e6)
                           for r in rows if r["variant"] == variant
                           and r["params"].get("copies", "memcpy") == way)
            if found:
                rising[(variant, way)] = (say(label, copies=name(way)), marker, style, i)
                points[(variant, way)] = found
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for group, gap in merge_coinciding({v: {"": p} for v, p in points.items()}, tolerance):
        label, marker, style, way = rising[group[0]]  # a colour per way of copying
        x, y = zip(*points[group[0]])
        ax.plot(x, y, marker=marker, linestyle=style, color=palette[way],
                label=merged_label([rising[v][0] for v in group], gap))
    lines = (("ceiling", "the host's ceiling (both sides at once, at their fastest)", "tab:green",
              "-"),
             ("pinned_only", "data already pinned (the pinned ceiling)", "black", ":"),
             ("gpu_alone", "its GPU work alone (no CPU copies)", "grey", "-."),
             ("async_pageable", "cudaMemcpyAsync from pageable memory", "tab:red", "--"),
             ("sync_pageable", "lesson 01's way", "tab:brown", ":"))
    levels = {variant: r["gbps"] for r in rows for variant, *_ in lines if r["variant"] == variant}
    groups = merge_coinciding({v: {"": [(0, levels[v])]} for v, *_ in lines if v in levels},
                              tolerance)
    for group, _ in groups:
        _, _, colour, style = next(line for line in lines if line[0] == group[0])
        ax.axhline(levels[group[0]], color=colour, linestyle=style, linewidth=1.5,
                   label=merged_label([say("{label}: {gbps:.1f} GB/s", label=say(label),
                                               gbps=levels[variant])
                                           for variant in group for v, label, *_ in lines
                                           if v == variant]))
    ax.set_xscale("log", base=2)
    ax.set_xticks(threads)
    ax.set_xticklabels([str(t) for t in threads])
    ax.set_xlabel(say("CPU threads copying into and out of the staging buffers"))
    ax.set_ylabel(say("GB/s in and out (1 GB = 1e9 bytes)"))
    ax.set_ylim(0, top)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, frameon=False)
    ax.set_title(result_set.title(say("06 part 5: the data in pageable memory, staged by the CPU "
                                      "(median, host clock)")))
    return save(plt, fig, out / result_set.slug / "staged_06")


# ------------------------------------------------------------------------ across GPUs

# The panels of the bandwidth comparison: a memory kind, copied one way or both ways at once.
COMPARED_KINDS = (("pageable", "bandwidth"), ("pinned", "bandwidth"),
                  ("pinned", "bandwidth_bidirectional"), ("registered", "bandwidth"),
                  ("write_combined", "bandwidth"))


def gpu_colours(plt, result_sets):
    """One colour per GPU, the same in every comparison figure."""
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {s.label: palette[i % len(palette)] for i, s in enumerate(result_sets)}


def compared_sweep(result_set, variant, experiment, direction):
    """[(bytes, GB/s), ...] of one kind and direction: lesson 04's sweep, or 01's for pageable
    memory where 04 has none."""
    for lesson in ("04_pinned_memory", "01_sync_copy"):
        rows = result_set.select(lesson=lesson, experiment=experiment, variant=variant,
                                 direction=direction)
        if rows:
            return sorted((r["bytes"], r["gbps"]) for r in rows)
    return []


def gpu_legend(fig, result_sets, colours):
    handles = [fig.axes[0].plot([], [], color=colours[s.label], linewidth=3)[0]
               for s in result_sets]
    fig.legend(handles, [s.label + (f", {s.date}" if s.date else "") for s in result_sets],
               loc="lower center", ncol=min(len(result_sets), 2), bbox_to_anchor=(0.5, 0),
               frameon=False)


def plot_bandwidth_comparison(plt, result_sets, out):
    """Small multiples: one panel per memory kind and direction, one line per GPU in its own
    colour, so that four or five GPUs stay readable side by side."""
    colours = gpu_colours(plt, result_sets)
    panels = [(kind, experiment) for kind, experiment in COMPARED_KINDS
              if any(compared_sweep(s, kind, experiment, "H2D") for s in result_sets)]
    if not panels:
        return None
    rows = 1 + (len(result_sets) + 1) // 2  # the legend's rows, under the panels
    fig, axes = plt.subplots(2, len(panels), figsize=(3.6 * len(panels), 8 + 0.3 * rows),
                             sharey="row", squeeze=False)
    for row, direction in enumerate(DIRECTION_STYLE):
        fastest = 0
        for ax, (kind, experiment) in zip(axes[row], panels):
            sizes = []
            for result_set in result_sets:
                points = compared_sweep(result_set, kind, experiment, direction)
                if points:
                    x, y = zip(*points)
                    sizes += x
                    fastest = max(fastest, *y)
                    ax.plot(x, y, color=colours[result_set.label], markersize=4,
                            **DIRECTION_STYLE[direction])
            both = experiment == "bandwidth_bidirectional"
            ax.set_title(say("{kind}, both ways at once\n{direction}" if both else
                             "{kind}\n{direction}", kind=name(kind.replace("_", "-")),
                             direction=direction))
            size_axis(ax, sizes)
            ax.tick_params(axis="x", labelsize=10)
            if row == 0:
                ax.set_xlabel("")
            ax.grid(True, alpha=0.3)
        axes[row][0].set_ylim(0, fastest * 1.08)  # the row shares it
        axes[row][0].set_ylabel(say("{direction}: GB/s (1e9 bytes/s)", direction=direction))
    gpu_legend(fig, result_sets, colours)
    fig.suptitle(say("Host-device copy bandwidth across GPUs, by memory kind (median; transfer "
                     "size along each axis)"))
    fig.tight_layout(rect=(0, 0.03 * rows, 1, 1))
    return save(plt, fig, out / "compare" / "bandwidth", layout=False)


def plot_pipeline_comparison(plt, result_sets, out):
    """Every GPU's pipeline: efficiency per regime, and speed-up by intensity."""
    with_pipeline = [s for s in result_sets if s.select(lesson="06_overlap_pipeline")]
    if not with_pipeline:
        return None
    colours = gpu_colours(plt, result_sets)
    rows = 1 + (len(with_pipeline) + 1) // 2
    fig, (bars_ax, lines_ax) = plt.subplots(1, 2, figsize=(9.5, 5.4 + 0.3 * rows))
    regimes = ("copy-bound", "balanced", "compute-bound")
    width = 0.8 / len(with_pipeline)
    all_iters = set()
    for i, result_set in enumerate(with_pipeline):
        colour = colours[result_set.label]
        efficiency = {r["params"].get("regime"): r["params"]["efficiency"]
                      for r in result_set.select(lesson="06_overlap_pipeline",
                                                 experiment="regimes", variant="depth_first")}
        bars = bars_ax.bar([x + i * width for x in range(len(regimes))],
                           [efficiency.get(r, 0) for r in regimes], width, color=colour)
        # Each bar's value inside it, upright where the bars are too narrow for it lying.
        bars_ax.bar_label(bars, fmt="%.2f", label_type="center", color="white", fontsize=SMALL,
                          fontweight="bold", rotation=90 if len(with_pipeline) > 2 else 0)
        points = ([(i, speedup) for i, speedup, _ in intensity_points(result_set)] or
                  regime_points(result_set))
        if points:
            iters, speedup = zip(*points)
            all_iters |= set(iters)
            lines_ax.plot(iters, speedup, marker="o", color=colour)
    bars_ax.axhline(1, color="black", linestyle="--", linewidth=1)
    bars_ax.set_xticks([x + width * (len(with_pipeline) - 1) / 2 for x in range(len(regimes))])
    bars_ax.set_xticklabels([name(regime) for regime in regimes])
    bars_ax.set_ylabel(say("overlap efficiency: max(kernels alone, copies alone) / time"))
    bars_ax.set_ylim(0, 1.1)
    bars_ax.set_title(say("overlap efficiency by regime\n(1 = as fast as its slower half)"))
    intensity_axis(lines_ax, all_iters)
    lines_ax.set_xlabel(say("kernel iterations per element"))
    lines_ax.set_ylabel(say("speed-up over one stream, one buffer (x)"))
    lines_ax.set_ylim(bottom=0)
    lines_ax.set_title(say("speed-up by\narithmetic intensity"))
    lines_ax.grid(True, alpha=0.3)
    gpu_legend(fig, with_pipeline, colours)
    fig.suptitle(say("06_overlap_pipeline across GPUs"))
    fig.tight_layout(rect=(0, 0.04 * rows, 1, 1))
    return save(plt, fig, out / "compare" / "pipeline", layout=False)


# -------------------------------------------------------------------------------- main

def use_chinese(plt):
    """Chinese words from here on, in the first Chinese font installed; Latin letters and digits
    stay in the default font, which matplotlib falls back from glyph by glyph."""
    global LANGUAGE
    from matplotlib import font_manager
    fonts = font_manager.fontManager
    font = next((f for f in zh.CJK_FONTS if f in {known.name for known in fonts.ttflist}), None)
    if font is None:  # matplotlib lists the fonts it found when it first ran: look again
        known = {entry.fname for entry in fonts.ttflist}
        for path in set(font_manager.findSystemFonts()) - known:
            try:
                fonts.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue  # a file FreeType cannot read is no font of ours
        names = {entry.name for entry in fonts.ttflist}
        font = next((f for f in zh.CJK_FONTS if f in names), None)
    if font is None:
        print(zh.NO_FONT, file=sys.stderr)
        sys.exit(3)  # as for a missing matplotlib: something to install, not a failure
    plt.rcParams["font.family"] = [plt.rcParams["font.sans-serif"][0], font]
    LANGUAGE = "zh"


LANGUAGES = ("en", "zh")


def language(text):
    """--lang's value: en or zh, or a locale naming one (zh_CN.UTF-8, zh_CN, zh-Hans, en_US)."""
    code = re.split(r"[_.@-]", text.strip(), maxsplit=1)[0].lower()
    if code in ("c", "posix", ""):
        code = "en"
    if code not in LANGUAGES:
        raise argparse.ArgumentTypeError(f"{text!r}: the figures' words are en or zh (a locale "
                                         "such as zh_CN.UTF-8 counts as its language)")
    return code


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results", type=pathlib.Path)
    parser.add_argument("--out", default="plots/out", type=pathlib.Path)
    parser.add_argument("--dpi", default=150, type=int, help="PNG resolution (docs/ uses 100)")
    parser.add_argument("--lang", default="en", type=language, metavar="{en,zh}",
                        help="the figures' words: English, or Chinese (needs a Chinese font); "
                             "a locale such as zh_CN.UTF-8 counts as its language")
    args = parser.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"plots: this Python ({sys.executable}) cannot load matplotlib ({e}): run "
              "`make plots`, which finds or installs a Python that has it", file=sys.stderr)
        sys.exit(3)  # something to install, not a failure
    plt.rcParams.update(STYLE)
    plt.rcParams["savefig.dpi"] = args.dpi
    if args.lang == "zh":
        use_chinese(plt)

    try:
        result_sets = find_result_sets(args.results)
    except ResultsError as e:
        sys.exit(f"plots: {e}")
    if not result_sets:
        sys.exit(f"plots: no results CSVs under {args.results}/: run `make run-all` on a GPU "
                 "machine, or plot the shipped ones with PLOTS_RESULTS=results/reference")
    written = []
    for result_set in result_sets:
        for figure in (plot_bandwidth, plot_alignment, plot_phases, plot_timeline,
                       plot_efficiency_heatmap, plot_intensity, plot_staged):
            written.append(figure(plt, result_set, args.out))
    written.append(plot_bandwidth_comparison(plt, result_sets, args.out))
    written.append(plot_pipeline_comparison(plt, result_sets, args.out))
    for path in filter(None, written):
        print(f"plots: wrote {path}")


if __name__ == "__main__":
    main()
