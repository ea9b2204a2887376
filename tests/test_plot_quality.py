"""Pictures a reader can trust, checked on every figure drawn through plot_all.save(): no legend
lists a label twice, no legend covers a data point or a bar, and on every axis of sizes, threads
or iterations each tick stands on a measured point. Drawn from the reference, and from four GPUs
side by side (the reference under four names with scaled figures: a fixture, never results),
in English and in Chinese (`make plots LANG=zh`): there every word has its translation, every
character its glyph, and no translation goes unused."""
import argparse
import csv
import math
import os
import re
import shutil
import subprocess
import sys
import warnings

import pytest

from conftest import ROOT

pytest.importorskip("matplotlib")
sys.path.insert(0, str(ROOT / "plots"))
import plot_all  # noqa: E402

REFERENCE = ROOT / "results" / "reference" / "nvidia-h200"
# Four GPUs for the comparisons: the reference's rates scaled, its times scaled inversely. The
# last was shared during its run: its label says so, at length.
FOUR_GPUS = (("NVIDIA H200", 1.0), ("Laptop GPU", 0.4), ("Workstation GPU", 0.45),
             ("Embedded GPU", 0.15))
SHARED_GPU = "Embedded GPU"


def data_lines(ax):
    """The lines that plot data, not the reference lines drawn across the axes."""
    return [line for line in ax.get_lines()
            if line.get_transform() == ax.transData and len(line.get_xydata())]


def legend_problems(fig, name, renderer):
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)
    for legend in legends:
        labels = [text.get_text() for text in legend.get_texts()]
        for label in sorted({label for label in labels if labels.count(label) > 1}):
            yield f"{name}: the legend lists '{label}' {labels.count(label)} times"
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            for line in data_lines(ax):
                covered = [(x, y) for x, y in ax.transData.transform(line.get_xydata())
                           if box.x0 < x < box.x1 and box.y0 < y < box.y1]
                if covered:
                    yield f"{name}: the legend covers {len(covered)} points of a line"
            for patch in ax.patches:
                extent = patch.get_window_extent(renderer)
                if extent.width > 1 and extent.height > 1 and box.overlaps(extent):
                    yield f"{name}: the legend covers a bar"


def text_problems(fig, name, renderer):
    """Words written on an axis (a bar's label, a note after a bar) stay inside its frame."""
    for ax in fig.axes:
        frame = ax.get_window_extent(renderer)
        for text in ax.texts:
            box = text.get_window_extent(renderer)
            if text.get_visible() and text.get_text() and (
                    box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or
                    box.y0 < frame.y0 - 1 or box.y1 > frame.y1 + 1):
                yield f"{name}: '{text.get_text()}' runs over its axis' frame"


def tick_problems(fig, name):
    for ax in fig.axes:
        if ax.get_xscale() != "log":
            continue
        xs = {x for line in data_lines(ax) for x in line.get_xdata()}
        if not xs:
            continue
        for tick in ax.get_xticks():
            if min(xs) <= tick <= max(xs) and not any(math.isclose(tick, x) for x in xs):
                yield f"{name}: a tick at {tick:g} stands on no measured point"


@pytest.fixture(params=["en", "zh"])
def language(request, monkeypatch):
    """The figures' words: English, or Chinese with every label used recorded, and a glyph that
    no font has made an error. Without a Chinese font the Chinese half is skipped, except in CI
    (REQUIRE_PLOTS=1), which installs one."""
    if request.param == "en":
        yield set()
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Both undone after the test.
    monkeypatch.setitem(plt.rcParams, "font.family", plt.rcParams["font.family"])
    monkeypatch.setattr(plot_all, "LANGUAGE", plot_all.LANGUAGE)
    try:
        plot_all.use_chinese(plt)
    except SystemExit:
        if os.environ.get("REQUIRE_PLOTS") == "1":
            raise
        pytest.skip("no Chinese font is installed (fonts-wqy-microhei or fonts-noto-cjk)")
    used, say = set(), plot_all.say

    def recording_say(english, **values):
        used.add(english)
        return say(english, **values)

    monkeypatch.setattr(plot_all, "say", recording_say)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Glyph .* missing from font")
        yield used


@pytest.fixture
def checked(monkeypatch):
    """plot_all.save() checking each figure before it writes it; the problems found."""
    problems, original = [], plot_all.save

    def save(plt, fig, stem, layout=True):
        if layout:
            fig.tight_layout()
        renderer = fig.canvas.get_renderer()
        fig.canvas.draw()
        problems.extend(legend_problems(fig, stem.name, renderer))
        problems.extend(tick_problems(fig, stem.name))
        problems.extend(text_problems(fig, stem.name, renderer))
        return original(plt, fig, stem, layout=False)

    monkeypatch.setattr(plot_all, "save", save)
    return problems


def draw_all(results, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    result_sets = plot_all.find_result_sets(results)
    written = [figure(plt, s, out) for s in result_sets
               for figure in (plot_all.plot_bandwidth, plot_all.plot_alignment,
                              plot_all.plot_phases, plot_all.plot_timeline,
                              plot_all.plot_efficiency_heatmap, plot_all.plot_intensity,
                              plot_all.plot_staged)]
    written += [plot_all.plot_bandwidth_comparison(plt, result_sets, out),
                plot_all.plot_pipeline_comparison(plt, result_sets, out)]
    return [w for w in written if w]


def test_the_reference_figures_are_readable(language, checked, tmp_path):
    assert len(draw_all(REFERENCE.parent, tmp_path)) == 9
    assert not checked, "\n".join(checked)


def test_four_gpus_side_by_side_are_readable(language, checked, tmp_path):
    for gpu, scale in FOUR_GPUS:
        folder = tmp_path / "four" / re.sub(r"\W+", "-", gpu)
        shutil.copytree(REFERENCE, folder)
        meta = folder / "meta.txt"
        meta.write_text(re.sub(r"(?m)^gpu: .*", f"gpu: {gpu}", meta.read_text()))
        for path in folder.glob("*.csv"):
            if path.name.endswith(plot_all.TRACE_SUFFIX):
                continue
            with path.open() as f:
                rows = list(csv.DictReader(f))
            for r in rows:
                r["gpu"] = gpu
                r["gbps"] = f"{float(r['gbps']) * scale:.3f}" if r["gbps"] else ""
                for key in ("median_ms", "min_ms", "max_ms"):
                    r[key] = f"{float(r[key]) / scale:.6g}"
                if gpu == SHARED_GPU:
                    r["params"] = ";".join(filter(None, (r["params"], "contended=1")))
            with path.open("w", newline="") as f:
                writer = csv.DictWriter(f, plot_all.COLUMNS)
                writer.writeheader()
                writer.writerows(rows)
    written = draw_all(tmp_path / "four", tmp_path / "out")
    assert (tmp_path / "out" / "compare" / "bandwidth.png") in written
    assert not checked, "\n".join(checked)
    if language:  # four GPUs, one shared, and the reference draw every label there is
        plot_all.ResultSet(REFERENCE)
        unused = set(plot_all.zh.LABELS) - language
        assert not unused, f"plots/zh.py translates labels no figure uses: {sorted(unused)}"


@pytest.mark.parametrize("given, language", [("zh_CN.UTF-8", "zh"), ("zh_CN", "zh"), ("zh", "zh"),
                                             ("zh-Hans", "zh"), ("en_US.UTF-8", "en"),
                                             ("en", "en"), ("C", "en")])
def test_lang_takes_a_locale(given, language):
    """`make plots LANG=zh_CN.UTF-8` hands a locale to --lang: its language counts."""
    assert plot_all.language(given) == language


def test_lang_refuses_a_language_it_cannot_draw():
    with pytest.raises(argparse.ArgumentTypeError, match="en or zh"):
        plot_all.language("fr_FR.UTF-8")


def test_a_python_without_matplotlib_says_so_in_one_line(tmp_path):
    """`python3 plots/plot_all.py` with a plain Python: one line pointing to `make plots`, exit 3
    (python -S leaves out the site-packages, and matplotlib with them)."""
    python = [sys.executable, "-S"]
    if subprocess.run(python + ["-c", "import matplotlib"], capture_output=True).returncode == 0:
        pytest.skip("matplotlib is importable even without site-packages")
    result = subprocess.run(python + [str(ROOT / "plots" / "plot_all.py"), "--results",
                                      str(REFERENCE.parent), "--out", str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode == 3, result.stderr
    assert len(result.stderr.splitlines()) == 1 and "make plots" in result.stderr, result.stderr
    assert not list(tmp_path.iterdir())
