"""The host code without a GPU: common/'s unit tests (built with AddressSanitizer and UBSan),
the same under valgrind, and each program's paths that need no GPU under valgrind."""
import shutil

import pytest

from conftest import HAS_GPU, LESSONS, ROOT, program, run
from lessons import small_args

UNIT_TESTS = run(ROOT / "build" / "tests" / "test_common")
# "PASS name" or "FAIL name: what"
VERDICTS = [line.split(" ", 2) for line in UNIT_TESTS.stdout.splitlines()
            if line.startswith(("PASS ", "FAIL "))]


@pytest.mark.parametrize("verdict", VERDICTS or [["FAIL", "test_common", "no test ran"]],
                         ids=[v[1].rstrip(":") for v in VERDICTS] or ["test_common"])
def test_common(verdict):
    assert verdict[0] == "PASS", verdict[2] if len(verdict) > 2 else ""


def test_common_exits_with_its_failure_count():
    """A crash or a sanitizer report ends it without a FAIL line."""
    failures = sum(v[0] == "FAIL" for v in VERDICTS)
    assert UNIT_TESTS.returncode == failures, UNIT_TESTS.stderr[-600:]


# ------------------------------------------------------------------------------------ valgrind

needs_valgrind = pytest.mark.skipif(not shutil.which("valgrind"), reason="valgrind is not installed")


def valgrind(*command):
    return run("valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
               "--errors-for-leak-kinds=definite", *command)


@needs_valgrind
def test_valgrind_unit_tests():
    result = valgrind(ROOT / "build" / "tests" / "test_common_plain")
    assert result.returncode == 0 and "FAIL" not in result.stdout, result.stderr[:600]


# Without a GPU, the programs run no further than these; with one, the driver's own allocations
# would drown the report, so the no-GPU path is left out there.
PATHS_WITHOUT_GPU = [("--help", ["--help"], 0), ("a bad size", ["--size", "12abc"], 2)]


@needs_valgrind
@pytest.mark.parametrize("lesson", LESSONS)
@pytest.mark.parametrize("what,args,want", PATHS_WITHOUT_GPU + [("no GPU", None, 77)],
                         ids=[p[0] for p in PATHS_WITHOUT_GPU] + ["no GPU"])
def test_valgrind_program(lesson, what, args, want):
    if args is None:
        if HAS_GPU:
            pytest.skip("a GPU is here: the no-GPU path is tested without valgrind")
        args = small_args(lesson)
    result = valgrind(program(lesson), *args)
    assert result.returncode == want, f"{what}: exit {result.returncode}: {result.stderr[:600]}"
