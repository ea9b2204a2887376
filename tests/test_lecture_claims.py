"""The lecture's claims that the lessons test (docs/errata.md), checked in every small run on a GPU
and in the shipped reference: what the CUDA runtime documents about when a copy returns, the
default streams, 7.2's alignment sweep, 7.3's sticky error and 7.6's managed memory."""
import re

import pytest

from conftest import ROOT, needs_gpu, program, run
from lessons import small_args
from test_results import read_rows

REFERENCE = sorted(ROOT.glob("results/reference/*/"))
OFFSETS = {0, 1, 4, 64, 256, 4096}


def small_run(lesson, tmp_path, *extra):
    csv = tmp_path / f"{lesson}.csv"
    result = run(program(lesson), *small_args(lesson), *extra, "--csv", csv)
    return result, (read_rows(csv) if csv.exists() else [])


def d2h_returned_early(rows):
    """'API synchronization behavior': a copy to pageable memory returns once it is complete."""
    return [r for r in rows if r["experiment"] == "bandwidth" and r["direction"] == "D2H"
            and r["params"].get("returned_early", 0) != 0]


def alignment_gaps(rows):
    sizes = {r["bytes"] for r in rows if r["experiment"] == "alignment"}
    have = {(r["variant"], r["direction"], r["bytes"], r["params"]["offset"])
            for r in rows if r["experiment"] == "alignment"}
    want = {(k, d, b, o) for k in ("pinned", "pageable") for d in ("H2D", "D2H")
            for b in sizes for o in OFFSETS}
    return sorted(want - have) if sizes else ["no alignment rows"]


def managed_ways(rows):
    return {r["variant"] for r in rows if r["experiment"] == "managed"}


MANAGED_WAYS = {"explicit_pinned", "managed_no_prefetch", "managed_advise", "managed_prefetch"}


@needs_gpu
def test_01_pageable_copies_to_the_host_return_complete(tmp_path):
    result, rows = small_run("01_sync_copy", tmp_path)
    assert result.returncode == 0, result.stderr[-300:]
    assert not d2h_returned_early(rows)


@needs_gpu
def test_02_per_thread_default_stream_waits_for_stream_0(tmp_path):
    result, rows = small_run("02_streams", tmp_path)
    assert result.returncode == 0, result.stderr[-300:]
    assert re.search(r"s1 = cudaStreamPerThread, tiny kernel in stream 0 .* serialised",
                     result.stdout), result.stdout
    assert re.search(r"non-blocking streams, tiny kernel in stream 0 .* together", result.stdout)
    # A copy of the chunk to pageable memory returns only when done, so it waits for the kernel
    # before it; pinned copies return at once at every size. (Small pageable H2D copies may
    # return at once: the driver can stage them without waiting; not asserted.)
    calls = re.findall(r"^  (pageable|pinned) +(H2D|D2H) +(\S+ \S+) returned after .*: "
                       r"(it waited|at once)", result.stdout, re.M)
    sizes = sorted({size for _, _, size, _ in calls})
    assert len(calls) == 4 * len(sizes) and len(sizes) >= 2, result.stdout
    chunk = calls[-1][2]
    assert ("pageable", "D2H", chunk, "it waited") in calls, calls
    assert all(verdict == "at once" for kind, _, _, verdict in calls if kind == "pinned"), calls
    assert len([r for r in rows if r["experiment"] == "async_returns"]) == len(calls)


@needs_gpu
def test_04_alignment_sweep_is_complete(tmp_path):
    result, rows = small_run("04_pinned_memory", tmp_path)
    assert result.returncode == 0, result.stderr[-300:]
    assert not alignment_gaps(rows)


@needs_gpu
def test_05_sticky_error_call_by_call(tmp_path):
    result, _ = small_run("05_raii_style_c", tmp_path, "--sticky-error", "1")
    out = result.stdout
    assert result.returncode == 1, f"exit {result.returncode}: {result.stderr[-300:]}"
    expected = [
        r"cudaMemcpy\(d, h, 4, \(cudaMemcpyKind\)42\) +-> cudaErrorInvalidMemcpyDirection",
        r"cudaGetLastError\(\) +-> cudaErrorInvalidMemcpyDirection .*clears",
        r"cudaGetLastError\(\) +-> cudaSuccess +cleared",
        r"cudaMemset\(d, 0, bytes\) +-> cudaSuccess +the GPU still works",
        r"launch_write_past_end\(\) +-> cudaSuccess",
        r"cudaPeekAtLastError\(\) +-> cudaSuccess +nothing has gone wrong yet",
        r"cudaStreamSynchronize\(stream\) +-> cudaErrorIllegalAddress",
        r"cudaGetLastError\(\) +-> cudaErrorIllegalAddress +returns it",
        # whether the second call clears the record or not, the fault stays:
        r"cudaMemset\(d, 0, bytes\) +-> cudaErrorIllegalAddress",
        r"cudaMalloc\(&p, 1 MiB\) +-> cudaErrorIllegalAddress",
        r"resources: \d+ acquired, 0 still live at exit",
    ]
    position = 0
    for pattern in expected:
        found = re.compile(pattern).search(out, position)
        assert found, f"not found after the previous step: {pattern}\n{out}"
        position = found.end()


@needs_gpu
def test_06_managed_memory_four_ways(tmp_path):
    result, rows = small_run("06_overlap_pipeline", tmp_path, "--sweeps", "0")
    assert result.returncode == 0, result.stderr[-300:]
    if "concurrent managed access no" in result.stdout:
        pytest.skip("this GPU cannot prefetch or advise managed memory")
    assert managed_ways(rows) == MANAGED_WAYS


@pytest.mark.parametrize("gpu", REFERENCE, ids=[p.name for p in REFERENCE])
def test_reference_shows_every_claim(gpu):
    assert not d2h_returned_early(read_rows(gpu / "01_sync_copy.csv"))
    assert not alignment_gaps(read_rows(gpu / "04_pinned_memory.csv"))
    assert managed_ways(read_rows(gpu / "06_overlap_pipeline.csv")) == MANAGED_WAYS
    assert {r["variant"] for r in read_rows(gpu / "02_streams.csv")
            if r["experiment"] == "default_stream"} >= {"per_thread_legacy", "nonblocking_legacy"}
