"""`make run-all` without a GPU, the plots (the shipped reference, two GPUs side by side, files
that cannot be read), and the one CSV schema, which the C code, the checker and the plots share."""
import os
import re
import shutil
import subprocess

import pytest

import check_csv
from conftest import HAS_GPU, LESSONS, ROOT, lines, run


def test_run_all_without_gpu_draws_the_reference_and_ends_cleanly(tmp_path):
    """run_all.sh says there is nothing to measure and exits 77; `make run-all` ends with 0."""
    if HAS_GPU:
        pytest.skip("a GPU is here: run-all would measure")
    result = run("bash", ROOT / "scripts" / "run_all.sh", *LESSONS,
                 env={"RESULTS_DIR": str(tmp_path / "results")})
    assert result.returncode == 77, result.stderr[:300]
    assert "drawing the shipped reference results" in result.stderr, result.stderr[:300]
    result = run("make", "--no-print-directory", "run-all",
                 env={"RESULTS_DIR": str(tmp_path / "results")})
    assert result.returncode == 0, result.stderr[-300:]


def test_csv_schema_has_one_source():
    """The C header's CSV_HEADER, read from common.h, is the plots' (and the checker's) COLUMNS."""
    header = (ROOT / "common" / "common.h").read_text()
    define = re.search(r"#define CSV_HEADER((?:.*\\\n)*.*)", header).group(1)
    assert "".join(re.findall(r'"([^"]*)"', define)).split(",") == check_csv.COLUMNS


def plots(results, out, lang="en"):
    return run("bash", ROOT / "scripts" / "plots.sh",
               env={"PLOTS_RESULTS": str(results), "PLOTS_OUT": str(out), "PLOTS_LANG": lang})


def pngs(folder):
    return [p for p in folder.rglob("*.png") if p.stat().st_size > 1024]


def skip_without_matplotlib(result):
    """Exit 3: no matplotlib (or, for Chinese, no font) could be had. CI sets REQUIRE_PLOTS=1 to
    fail instead."""
    if result.returncode == 3 and os.environ.get("REQUIRE_PLOTS") != "1":
        pytest.skip(lines(result.stderr)[0] if result.stderr else "no matplotlib")


REFERENCE = ROOT / "results" / "reference"


def test_reference_results_draw_every_figure(tmp_path):
    result = plots(REFERENCE, tmp_path)
    skip_without_matplotlib(result)
    # bandwidth, alignment, phases, timeline, efficiency, intensity, staged, the two comparisons
    assert result.returncode == 0 and len(pngs(tmp_path)) == 9, result.stderr[-400:]


def test_make_plots_lang_zh_draws_every_figure_in_chinese(tmp_path):
    """`make plots LANG=zh` hands the language to plots.sh, which draws the same figures with
    Chinese words (exit 3 without a Chinese font, as without matplotlib: make's own status is 2)."""
    dry = run("make", "--no-print-directory", "-n", "plots", "LANG=zh")
    assert "PLOTS_LANG=zh bash scripts/plots.sh" in dry.stdout, dry.stdout
    result = plots(REFERENCE, tmp_path, lang="zh")
    skip_without_matplotlib(result)
    assert result.returncode == 0 and len(pngs(tmp_path)) == 9, result.stderr[-400:]
    assert "各传输大小的拷贝带宽" in (tmp_path / "nvidia-h200-reference" /
                                "bandwidth.svg").read_text()


def test_two_gpus_draw_their_figures_and_the_comparisons(tmp_path):
    """The reference under two names, so the comparison draws two series of everything."""
    for gpu in ("GPU A", "GPU B"):
        folder = tmp_path / "two" / gpu.replace(" ", "-")
        shutil.copytree(REFERENCE / "nvidia-h200", folder)
        meta = folder / "meta.txt"
        meta.write_text(re.sub(r"(?m)^gpu: .*", f"gpu: {gpu}", meta.read_text()))
    result = plots(tmp_path / "two", tmp_path / "out")
    skip_without_matplotlib(result)
    assert result.returncode == 0 and len(pngs(tmp_path / "out")) == 16, result.stderr[-400:]
    assert "compare/pipeline.png" in result.stdout


GOOD = REFERENCE / "nvidia-h200" / "01_sync_copy.csv"


def bad_results(kind, folder):
    """A results folder with one kind of problem in it."""
    good = GOOD.read_text().splitlines(keepends=True)
    folder.mkdir()
    if kind == "header":
        (folder / "x.csv").write_text("a,b,c\n" + "".join(good[1:]))
    elif kind == "fields":
        (folder / "x.csv").write_text("".join(good[:2]) + "01_sync_copy,phases,h2d\n")
    elif kind == "number":
        (folder / "x.csv").write_text(good[0] + re.sub(r",20,[0-9.]*,", ",20,fast,", good[1], 1))
    elif kind == "trace":
        shutil.copy(GOOD, folder)
        (folder / "06_overlap_pipeline_trace.csv").write_text("run,row\n")
    elif kind == "missing":
        folder.rmdir()
    return folder


@pytest.mark.parametrize("kind", ["header", "fields", "number", "trace", "missing"])
def test_unreadable_results_give_one_line_and_no_traceback(kind, tmp_path):
    result = plots(bad_results(kind, tmp_path / "bad"), tmp_path / "out")
    skip_without_matplotlib(result)
    assert result.returncode == 1 and len(lines(result.stderr)) == 1, result.stderr[:300]
    assert result.stderr.startswith("plots: ") and "Traceback" not in result.stderr


def test_scripts_run_without_their_execute_bits(tmp_path):
    """Some unzip tools drop the execute bits: the Makefile runs its scripts through bash, so
    `make plots` (plots.sh, python.sh) still works in such a copy, and run-all calls bash too."""
    import sys
    copy = tmp_path / "course"
    for part in ("Makefile", "scripts", "plots", "results/reference"):
        source, target = ROOT / part, copy / part
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("out", "__pycache__"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
    for script in (copy / "scripts").iterdir():
        script.chmod(0o644)
    result = subprocess.run(["make", "--no-print-directory", "plots", f"PYTHON={sys.executable}"],
                            cwd=copy, capture_output=True, text=True)
    skip_without_matplotlib(result)
    assert result.returncode == 0, result.stderr[-400:]
    assert pngs(copy / "plots" / "out"), "no figure drawn"
    dry = subprocess.run(["make", "-n", "-o", "all", "run-all"], cwd=copy, capture_output=True,
                         text=True)
    assert "bash scripts/run_all.sh" in dry.stdout, dry.stdout[-400:]
