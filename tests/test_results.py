"""What lesson 06's results must show, in the shipped reference and in every run under results/:
no pipeline beats its bound by more than its efficiency's own spread (a bound a measurement
beats is a bug in the bound), and the balanced regime is balanced: the pipeline without its
copies and without its kernels within 5% of each other; and main.c's plain loop takes the same
time as the engine's depth-first run, which issues the same calls (`--deep orders`). The shipped
reference was measured on a GPU no other process used."""
import pathlib
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "plots"))
from plot_all import read_rows  # noqa: E402  (the plots' reader: one parser of the schema)


# The graph replay's efficiency is against the bound issued call by call, whose halves pay the
# calls the graph saves (06's graph.c): it may exceed 1 without a wrong bound, so it is no bound.
NOT_BOUNDED = {("graph", "graph_replay")}


def bound_problems(rows):
    for r in rows:
        p = r["params"]
        if "efficiency" not in p or (r["experiment"], r["variant"]) in NOT_BOUNDED:
            continue
        if "efficiency_min" not in p and r["variant"] in ("depth_first", "breadth_first"):
            yield f"{r['experiment']} {r['variant']}: no efficiency_min and efficiency_max"
            continue
        spread = p["efficiency_max"] - p["efficiency_min"] if "efficiency_min" in p else 0
        if p["efficiency"] > 1 + spread:
            yield (f"{r['experiment']} {r['variant']} {p}: efficiency {p['efficiency']} is "
                   f"above 1 + its spread {spread:.4f}")


def balance_problems(rows):
    halves = {r["variant"]: r["median_ms"] for r in rows
              if r["experiment"] == "regimes" and r["params"].get("regime") == "balanced"}
    if not {"kernels_only", "copies_only"} <= halves.keys():
        yield "no balanced regime with kernels_only and copies_only rows"
        return
    kernels, copies = halves["kernels_only"], halves["copies_only"]
    if abs(kernels - copies) > 0.05 * max(kernels, copies):
        yield f"balanced regime: kernels only {kernels} ms, copies only {copies} ms, over 5% apart"


def same_time_problems(rows, slack=0.01):
    """The plain loop's time over the engine's depth-first run's, rep by rep: 1 inside its range,
    or its median within `slack` of 1. Runs without --deep orders have no such rows."""
    for r in rows:
        if r["experiment"] != "orders" or r["variant"] != "plain_loop":
            continue
        p = r["params"]
        low, high = p["ratio_vs_engine_min"], p["ratio_vs_engine_max"]
        if not (low <= 1 <= high or abs(p["ratio_vs_engine"] - 1) <= slack):
            yield (f"orders, {p['regime']}: the loop over the engine's depth-first run is "
                   f"{p['ratio_vs_engine']} ({low}-{high}): not the same time")


RESULTS = sorted(ROOT.glob("results/**/06_overlap_pipeline.csv"))


@pytest.mark.parametrize("path", RESULTS, ids=[str(p.relative_to(ROOT)) for p in RESULTS])
def test_no_pipeline_beats_its_bound(path):
    problems = list(bound_problems(read_rows(path)))
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("path", RESULTS, ids=[str(p.relative_to(ROOT)) for p in RESULTS])
def test_balanced_regime_is_balanced(path):
    problems = list(balance_problems(read_rows(path)))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", RESULTS, ids=[str(p.relative_to(ROOT)) for p in RESULTS])
def test_the_plain_loop_takes_the_engines_time(path):
    problems = list(same_time_problems(read_rows(path)))
    assert not problems, "\n".join(problems)


def test_the_reference_compares_the_loop_with_the_engine():
    rows = read_rows(ROOT / "results" / "reference" / "nvidia-h200" / "06_overlap_pipeline.csv")
    regimes = {r["params"]["regime"] for r in rows
               if r["experiment"] == "orders" and r["variant"] == "plain_loop"}
    assert regimes == {"copy-bound", "balanced", "compute-bound"}, regimes


def test_results_to_check_exist():
    assert RESULTS, "no 06_overlap_pipeline.csv under results/: the reference is missing"


REFERENCE = [p for p in sorted(ROOT.glob("results/reference/**/*.csv"))
             if not p.name.endswith("_trace.csv")]


@pytest.mark.parametrize("path", REFERENCE, ids=[str(p.relative_to(ROOT)) for p in REFERENCE])
def test_reference_was_not_shared(path):
    shared = [r for r in read_rows(path) if r["params"].get("contended") == 1]
    assert not shared, f"{len(shared)} rows measured while another process used the GPU"
