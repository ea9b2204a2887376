"""What the results must show, in the shipped reference and in every run under results/: no
pipeline beats its bound by more than its efficiency's own spread (a bound a measurement beats is
a bug in the bound), nor the floor across shapes, nor a staged run the host's ceiling, by more
than the floor's or the ceiling's own fastest repetition; part 5 weighs both ways of copying at
every thread count; the balanced regime is balanced: the
pipeline without its copies and without its kernels within 5% of each other; the intensity sweep
holds the balance point and twice it; main.c's plain loop takes the same time as the engine's
depth-first run, which issues the same calls (`--deep orders`); lesson 02 asks which calls wait
in both directions. The shipped reference was measured on a GPU no other process used, and its
cold pageable copies in ran slower than hot ones."""
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


def floor_problems(rows):
    """No shape below the floor across shapes' fastest repetition; no intensity below its own."""
    shapes = [r for r in rows if r["experiment"] == "sweep_shape"]
    floor = [r for r in shapes if r["variant"] == "floor_across_shapes"]
    if shapes and len(floor) != 1:
        yield f"{len(floor)} floor_across_shapes rows beside {len(shapes)} sweep_shape rows"
        return
    for r in shapes:
        if r["variant"] == "depth_first" and r["median_ms"] < floor[0]["min_ms"]:
            yield (f"{r['params']['chunks']} chunks x {r['params']['streams']} streams took "
                   f"{r['median_ms']} ms, below the floor's fastest repetition "
                   f"{floor[0]['min_ms']}")
    for r in rows:
        if r["experiment"] == "sweep_intensity" and r["variant"] == "depth_first":
            if "floor_min_ms" not in r["params"]:
                yield f"intensity {r['params']['iters']}: no floor"
            elif r["median_ms"] < r["params"]["floor_min_ms"]:
                yield (f"intensity {r['params']['iters']}: {r['median_ms']} ms, below its "
                       f"floor's fastest repetition {r['params']['floor_min_ms']}")


def ceiling_problems(rows):
    """No staged run below the host's ceiling's fastest repetition, where part 5 measured one."""
    staged = [r for r in rows if r["experiment"] == "staged" and r["variant"] == "staged"]
    ceiling = [r for r in rows if r["experiment"] == "staged" and r["variant"] == "ceiling"]
    if any("copies" in r["params"] for r in staged) and len(ceiling) != 1:
        yield f"{len(ceiling)} ceiling rows beside {len(staged)} staged runs"
        return
    for r in staged:
        if ceiling and r["median_ms"] < ceiling[0]["min_ms"]:
            yield (f"staged, {r['params']['copies']}, {r['params']['threads']} threads: "
                   f"{r['median_ms']} ms, below the ceiling's fastest {ceiling[0]['min_ms']}")


def staged_way_problems(rows):
    """Where part 5 weighed two ways of copying: both at every thread count, each with its staged
    run, its CPU side alone and both sides at once, the copies in weighed both ways, and the best
    run against memcpy's."""
    staged = [r for r in rows if r["experiment"] == "staged"]
    ways = {(r["params"]["copies"], r["params"]["threads"], r["variant"]) for r in staged
            if "copies" in r["params"] and "threads" in r["params"]
            and r["variant"] in ("staged", "cpu_alone", "sides_at_once")}
    copies = {c for c, _, _ in ways}
    if len(copies) < 2:
        return
    for way in sorted(copies):
        for threads in sorted({t for _, t, _ in ways}):
            for variant in ("staged", "cpu_alone", "sides_at_once"):
                if (way, threads, variant) not in ways:
                    yield f"staged part: no {variant} row for {way} on {threads} threads"
    for variant, count in (("cpu_copies_in_choice", 2), ("best_vs_memcpy", 1)):
        if sum(r["variant"] == variant for r in staged) != count:
            yield f"staged part: not {count} {variant} row(s)"


def intensity_problems(rows):
    """The intensity sweep, where it ran, holds the balanced regime's iterations and twice them."""
    swept = {r["params"]["iters"] for r in rows if r["experiment"] == "sweep_intensity"}
    balanced = {r["params"]["iters"] for r in rows if r["experiment"] == "regimes"
                and r["params"].get("regime") == "balanced"}
    for iters in balanced:
        missing = {iters, 2 * iters} - swept
        if swept and missing:
            yield f"the intensity sweep lacks {sorted(missing)} (balanced at {iters})"


RESULTS = sorted(ROOT.glob("results/**/06_overlap_pipeline.csv"))


@pytest.mark.parametrize("path", RESULTS, ids=[str(p.relative_to(ROOT)) for p in RESULTS])
def test_no_shape_beats_the_floor_across_shapes(path):
    problems = list(floor_problems(read_rows(path)))
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("path", RESULTS, ids=[str(p.relative_to(ROOT)) for p in RESULTS])
def test_no_staged_run_beats_the_hosts_ceiling(path):
    problems = list(ceiling_problems(read_rows(path)))
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("path", RESULTS, ids=[str(p.relative_to(ROOT)) for p in RESULTS])
def test_the_staged_part_weighs_both_ways_of_copying(path):
    problems = list(staged_way_problems(read_rows(path)))
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("path", RESULTS, ids=[str(p.relative_to(ROOT)) for p in RESULTS])
def test_the_intensity_sweep_holds_the_balance_point(path):
    problems = list(intensity_problems(read_rows(path)))
    assert not problems, "\n".join(problems)


STREAMS = sorted(ROOT.glob("results/**/02_streams.csv"))


@pytest.mark.parametrize("path", STREAMS, ids=[str(p.relative_to(ROOT)) for p in STREAMS])
def test_which_calls_wait_is_asked_both_ways(path):
    asked = {(r["variant"], r["direction"]) for r in read_rows(path)
             if r["experiment"] == "async_returns"}
    assert asked == {(m, d) for m in ("pageable", "pinned") for d in ("H2D", "D2H")}, asked


def test_the_reference_cold_pageable_copies_in_ran_slower_than_hot():
    rows = read_rows(ROOT / "results" / "reference" / "nvidia-h200" /
                     "04_pinned_memory_exercises.csv")
    ratio = [r["params"]["value"] for r in rows if r["variant"] == "pageable_h2d_cold_over_hot"]
    assert ratio and ratio[0] > 1, ratio


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


def test_the_floor_and_ceiling_checks_catch_a_run_below_them():
    def row(experiment, variant, ms, low, **params):
        return {"experiment": experiment, "variant": variant, "median_ms": ms, "min_ms": low,
                "params": params}
    shapes = [row("sweep_shape", "floor_across_shapes", 5.6, 5.5),
              row("sweep_shape", "depth_first", 5.4, 5.3, chunks=8, streams=4),
              row("sweep_intensity", "depth_first", 5.0, 4.9, iters=16, floor_min_ms=5.2)]
    assert len(list(floor_problems(shapes))) == 2
    staged = [row("staged", "ceiling", 40.0, 39.0),
              row("staged", "staged", 38.5, 38.0, copies="streaming", threads=12)]
    assert len(list(ceiling_problems(staged))) == 1
    assert not list(ceiling_problems(staged[:1] + [row("staged", "staged", 39.5, 39.0,
                                                       copies="streaming", threads=12)]))
    one_way_missing = [row("staged", v, 40.0, 39.0, copies=c, threads=16)
                       for c in ("memcpy", "streaming")
                       for v in ("staged", "cpu_alone", "sides_at_once")][:-1]
    assert len(list(staged_way_problems(one_way_missing))) == 3  # the row, the choice, the best
