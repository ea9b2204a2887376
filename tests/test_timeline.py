"""Lesson 06's timeline: the shipped reference passes the same checks as a fresh one, recorded
on a GPU (check_trace.py says what they are)."""
import check_trace
from conftest import LESSONS, ROOT, needs_gpu, program, run
from lessons import small_args

import pytest

pytestmark = pytest.mark.skipif("06_overlap_pipeline" not in LESSONS, reason="06 not tested")


def test_reference_timeline_holds_each_copy_and_kernel_once():
    problems = list(check_trace.problems(
        str(ROOT / "results" / "reference" / "nvidia-h200" / "06_overlap_pipeline_trace"), 64))
    assert not problems, "\n".join(problems[:10])


@needs_gpu
def test_fresh_timeline_holds_each_copy_and_kernel_once(tmp_path):
    prefix = tmp_path / "trace"
    result = run(program("06_overlap_pipeline"), *small_args("06_overlap_pipeline"),
                 "--trace", prefix)
    assert result.returncode == 0, result.stderr[-400:]
    problems = list(check_trace.problems(str(prefix), 8))
    assert not problems, "\n".join(problems[:10])


@needs_gpu
def test_the_default_run_traces_the_serial_and_pipelined_runs(tmp_path):
    """The classroom run's timeline: the two runs the student page shows, nothing else."""
    args = small_args("06_overlap_pipeline")
    deep = args.index("--deep")
    prefix = tmp_path / "trace"
    result = run(program("06_overlap_pipeline"), *args[:deep], *args[deep + 2:], "--trace", prefix)
    assert result.returncode == 0, result.stderr[-400:]
    problems = list(check_trace.problems(str(prefix), 8, check_trace.CORE_RUNS))
    assert not problems, "\n".join(problems[:10])
