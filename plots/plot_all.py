"""Draws the course's results: one set of figures per results folder, and comparisons across GPUs.

A results folder is any folder holding lesson CSVs (results/<gpu>/ from `make run-all`, or the
shipped results/reference/<gpu>/), with an optional meta.txt that `make run-all` writes.

usage: python3 plots/plot_all.py [--results DIR] [--out DIR]
"""
import argparse
import csv
import pathlib
import re
import sys

COLUMNS = ("lesson,experiment,variant,direction,bytes,reps,median_ms,min_ms,max_ms,gbps,"
           "gpu,cc,driver,runtime,params").split(",")
TRACE_SUFFIX = "_trace.csv"  # lesson 06's timeline, written beside its results
NUMERIC = {"bytes": int, "reps": int, "median_ms": float, "min_ms": float, "max_ms": float}

# PCIe transfer rate per lane in GT/s and the line code's efficiency, by generation.
PCIE = {1: (2.5, 8 / 10), 2: (5.0, 8 / 10), 3: (8.0, 128 / 130), 4: (16.0, 128 / 130),
        5: (32.0, 128 / 130)}


# Solid lines and circles for host to device, dashed lines and squares for device to host.
DIRECTION_STYLE = {"H2D": {"linestyle": "-", "marker": "o"},
                   "D2H": {"linestyle": "--", "marker": "s"},
                   "both": {"linestyle": ":", "marker": "^"}}


class ResultsError(Exception):
    """A results file that cannot be read; the message names the file and the problem."""


class ResultSet:
    """The CSV rows and metadata of one results folder: one GPU, one run."""

    def __init__(self, folder):
        self.folder = folder
        self.rows = []
        for path in sorted(folder.glob("*.csv")):
            if not path.name.endswith(TRACE_SUFFIX):  # timelines have their own columns
                self.rows.extend(read_rows(path))
        self.meta = read_meta(folder / "meta.txt")
        gpu = self.meta.get("gpu") or (self.rows[0]["gpu"] if self.rows else folder.name)
        self.label = gpu + (" (reference)" if "reference" in folder.parts else "")
        self.date = self.meta.get("date", "")[:10]
        self.slug = re.sub(r"[^a-z0-9]+", "-", self.label.lower()).strip("-")

    def select(self, **match):
        return [r for r in self.rows if all(r[k] == v for k, v in match.items())]

    def pcie_peak_gbps(self):
        """The link's theoretical bandwidth per direction, from meta.txt's 'gen G xW (max)'."""
        found = re.search(r"gen (\d+) x(\d+) \(max\)", self.meta.get("pcie_link", ""))
        if not found or int(found.group(1)) not in PCIE:
            return None
        rate, efficiency = PCIE[int(found.group(1))]
        return rate * efficiency * int(found.group(2)) / 8

    def title(self, what):
        return f"{what}\n{self.label}" + (f", {self.date}" if self.date else "")


def read_rows(path):
    try:
        with open(path, newline="") as f:
            table = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: cannot read it ({e})") from None
    if not table or table[0] != COLUMNS:
        raise ResultsError(f"{path}: not a results CSV: the first line must be {','.join(COLUMNS)}")
    rows = []
    for line, cells in enumerate(table[1:], start=2):
        if len(cells) != len(COLUMNS):
            raise ResultsError(f"{path}:{line}: {len(cells)} fields, want {len(COLUMNS)}")
        row = dict(zip(COLUMNS, cells))
        try:
            for key, kind in NUMERIC.items():
                row[key] = kind(row[key])
            row["gbps"] = float(row["gbps"]) if row["gbps"] else None
        except ValueError as e:
            raise ResultsError(f"{path}:{line}: {e}") from None
        row["params"] = dict(p.split("=", 1) for p in row["params"].split(";") if "=" in p)
        rows.append(row)
    return rows


def read_meta(path):
    if not path.exists():
        return {}
    meta = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition(":")
        if sep:
            meta[key.strip()] = value.strip()
    return meta


def find_result_sets(root):
    folders = sorted({p.parent for p in root.rglob("*.csv")})
    return [ResultSet(folder) for folder in folders]


# ------------------------------------------------------------------------------------ figures

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
    ax.set_xlabel("transfer size (binary units)")


def bandwidth_series(result_set):
    """{(lesson, variant, direction): [(bytes, GB/s), ...]} for every bandwidth sweep."""
    series = {}
    for r in result_set.select(experiment="bandwidth"):
        key = (r["lesson"], r["variant"], r["direction"])
        series.setdefault(key, []).append((r["bytes"], r["gbps"]))
    return {k: sorted(v) for k, v in series.items()}


def plot_bandwidth(plt, result_set, out):
    series = bandwidth_series(result_set)
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(13, 6))
    sizes = []
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = {}  # one colour per lesson and memory kind; the line style tells the direction
    for (lesson, variant, direction), points in sorted(series.items()):
        x, y = zip(*points)
        sizes += x
        colour = colours.setdefault((lesson, variant), palette[len(colours) % len(palette)])
        ax.plot(x, y, color=colour, **DIRECTION_STYLE[direction],
                label=f"{variant} {direction} ({lesson})")
    best = max(y for points in series.values() for _, y in points)
    ax.axhline(best, color="grey", linestyle="--", linewidth=1)
    ax.annotate(f"best measured {best:.1f} GB/s", (min(sizes), best), xytext=(0, 4),
                textcoords="offset points", color="grey")
    peak = result_set.pcie_peak_gbps()
    if peak:
        ax.axhline(peak, color="black", linestyle=":", linewidth=1)
        ax.annotate(f"PCIe peak {peak:.1f} GB/s per direction", (min(sizes), peak),
                    xytext=(0, 4), textcoords="offset points")
    size_axis(ax, sizes)
    ax.set_ylabel("bandwidth (GB/s, 1 GB = 1e9 bytes)")
    ax.set_ylim(bottom=0, top=max(best, peak or 0) * 1.15)
    ax.set_title(result_set.title("Host-device copy bandwidth by transfer size "
                                  "(median; solid H2D, dashed D2H)"))
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=10)
    return save(plt, fig, out / result_set.slug / "bandwidth")


def plot_phases(plt, result_set, out):
    """Lesson 01: where the time of one synchronous c = a + b goes, on the GPU and on the CPU."""
    phases = ("h2d", "kernel", "d2h")
    gpu = {r["variant"]: r["median_ms"] for r in result_set.select(
        lesson="01_sync_copy", experiment="phases") if r["params"].get("clock") == "gpu_event"}
    host = {r["variant"]: r["median_ms"] for r in result_set.select(
        lesson="01_sync_copy", experiment="phases") if r["params"].get("clock") == "host"}
    if not all(p in gpu and p in host for p in phases):
        return None
    fig, ax = plt.subplots(figsize=(10, 4.5))
    total = max(sum(gpu[p] for p in phases), sum(host[p] for p in phases))
    colours = {"h2d": "tab:blue", "kernel": "tab:green", "d2h": "tab:orange"}
    for row, (label, times, hatch) in enumerate((("GPU busy (events)", gpu, None),
                                                 ("CPU blocked (host clock)", host, "//"))):
        start = 0.0
        for p in phases:
            ax.barh(row, times[p], left=start, color=colours[p], hatch=hatch, edgecolor="white",
                    label=p if row == 0 else None)
            if times[p] > 0.04 * total:  # label only the segments wide enough to hold one
                ax.text(start + times[p] / 2, row, f"{times[p]:.1f}", ha="center",
                        va="center", fontsize=11)
            start += times[p]
    ax.set_yticks([0, 1])
    ax.set_yticklabels(["GPU busy (events)", "CPU blocked (host clock)"])
    ax.invert_yaxis()
    ax.set_xlabel("time (ms, median)")
    ax.set_title(result_set.title("01_sync_copy: c = a + b with blocking cudaMemcpy"))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=3)
    return save(plt, fig, out / result_set.slug / "phases_01")


def plot_bandwidth_comparison(plt, result_sets, out):
    """Every GPU's sweeps on one figure: one series per GPU, memory kind and direction."""
    fig, ax = plt.subplots(figsize=(14, 6.5))
    sizes = []
    for result_set in result_sets:
        for (lesson, variant, direction), points in bandwidth_series(result_set).items():
            x, y = zip(*points)
            sizes += x
            ax.plot(x, y, **DIRECTION_STYLE[direction],
                    label=f"{result_set.label}: {variant} {direction}")
    if not sizes:
        plt.close(fig)
        return None
    size_axis(ax, sizes)
    ax.set_ylabel("bandwidth (GB/s, 1 GB = 1e9 bytes)")
    ax.set_ylim(bottom=0)
    ax.set_title("Host-device copy bandwidth across GPUs (median; solid H2D, dashed D2H)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9)
    return save(plt, fig, out / "compare" / "bandwidth")


def save(plt, fig, stem):
    stem.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    for suffix in (".png", ".svg"):
        fig.savefig(stem.with_suffix(suffix), dpi=150)
    plt.close(fig)
    return stem.with_suffix(".png")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results", type=pathlib.Path)
    parser.add_argument("--out", default="plots/out", type=pathlib.Path)
    args = parser.parse_args()

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 12, "axes.titlesize": 13})

    try:
        result_sets = find_result_sets(args.results)
    except ResultsError as e:
        sys.exit(f"plots: {e}")
    if not result_sets:
        sys.exit(f"plots: no results CSVs under {args.results}/: run `make run-all` on a GPU "
                 "machine, or plot the shipped ones with PLOTS_RESULTS=results/reference")
    written = []
    for result_set in result_sets:
        written += [plot_bandwidth(plt, result_set, args.out),
                    plot_phases(plt, result_set, args.out)]
    written.append(plot_bandwidth_comparison(plt, result_sets, args.out))
    for path in filter(None, written):
        print(f"plots: wrote {path}")


if __name__ == "__main__":
    main()
