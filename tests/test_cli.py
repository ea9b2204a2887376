"""Every program's command line: --help, every flag it lists fed the bad values of its kind, no
value and twice, stray arguments, and the no-GPU path. Each refusal is exit 2 with nothing on
stdout and exactly one line on stderr that names the flag."""
import re

import pytest

from conftest import HAS_GPU, LESSONS, lines, program, run
from lessons import small_args

# Values every flag of a kind must refuse: signs, fractions, junk, other bases, units that are
# not binary, overflow, out of range, blanks, and text that looks like a flag.
BAD_VALUES = {
    "bytes": ["-1", "0", "12abc", "64KB", "1.5M", "0x100", " 64", "+64", "99999999999999999999G",
              "2T", "", "1P", "--reps"],
    "count": ["-1", "1.5", "12abc", "99999999999999999999", "4294967296", "", "1e3", "0x10", " 3",
              "+3", "3 4", "--size"],
    "path": [""],
}
GOOD_VALUE = {"bytes": "64K", "count": "1", "path": "x.csv"}


def flag_kind(meta):
    return {"BYTES": "bytes", "PATH": "path", "PREFIX": "path"}.get(meta, "count")


def listed_flags(lesson):
    """(flag, kind) for every flag the program's --help lists, --help itself aside."""
    usage = run(program(lesson), "--help").stdout
    return [(flag, flag_kind(meta))
            for flag, meta in re.findall(r"^  (--[a-z-]+) ([A-Z0-9|]+) ", usage, re.M)]


def bad_command_lines():
    for lesson in LESSONS:
        for flag, kind in listed_flags(lesson):
            for value in BAD_VALUES[kind]:
                yield pytest.param(lesson, flag, [flag, value], id=f"{lesson} {flag} {value!r}")
            yield pytest.param(lesson, flag, [flag], id=f"{lesson} {flag} (no value)")
            good = GOOD_VALUE[kind]
            yield pytest.param(lesson, flag, [flag, good, flag, good], id=f"{lesson} {flag} twice")
        for stray in ("--no-such-flag", "stray", "-"):
            yield pytest.param(lesson, stray, [stray], id=f"{lesson} {stray!r}")


BAD = list(bad_command_lines())


@pytest.mark.parametrize("lesson", LESSONS)
def test_help(lesson):
    """The usage fits 100 columns, and a default of 0 that the help explains is said once."""
    result = run(program(lesson), "--help")
    assert result.returncode == 0 and re.search(f"^usage: {lesson}", result.stdout, re.M)
    wide = [line for line in result.stdout.splitlines() if len(line) > 100]
    assert not wide, f"--help lines over 100 columns: {wide}"
    assert not re.search(r"\(0: [^)]*\)\s+\(default 0\)", result.stdout), result.stdout
    assert re.search(r"--exercise N .*\n?.*\(0: the lesson itself, the default\)", result.stdout)


@pytest.mark.parametrize("lesson,name,args", BAD)
def test_bad_command_line_refused(lesson, name, args):
    result = run(program(lesson), *args, timeout=10)
    assert (result.returncode, result.stdout, len(lines(result.stderr))) == (2, "", 1), \
        f"exit {result.returncode}, stderr: {result.stderr[:300]}"
    assert name in result.stderr


@pytest.mark.parametrize("lesson", LESSONS)
def test_without_gpu_exit_77_and_one_sentence(lesson):
    """On a GPU machine, hiding the GPUs gets there."""
    result = run(program(lesson), *small_args(lesson),
                 env={"CUDA_VISIBLE_DEVICES": ""} if HAS_GPU else None)
    assert result.returncode == 77, result.stderr[:300]
    assert len(lines(result.stderr)) == 1 and "needs an NVIDIA GPU: " in result.stderr
    # what is true of the machine first, CUDA's error after it, the next step a sentence of its own
    assert re.search(r"needs an NVIDIA GPU: [^;]+; CUDA said cuda\w+\. Run `make plots`",
                     result.stderr), result.stderr


@pytest.mark.parametrize("args,reason", [
    (["--streams", "0"], "'0' is too small; expected a whole number from 2 to"),
    (["--reps", "-3"], "'-3' is negative"),
    (["--device", "-1"], "'-1' is negative"),
    (["--size", "-1"], "'-1' is negative"),
    (["--reps", "0"], "'0' must be greater than zero"),
])
def test_a_refusal_does_not_contradict_itself(args, reason):
    """The reason given agrees with the range given, and a negative number is called one."""
    result = run(program("02_streams"), *args, timeout=10)
    assert result.returncode == 2 and reason in result.stderr, result.stderr
