"""The coding tasks: each lesson's task.c, the student's, built and checked by `make task-NN`.

Everywhere: every task builds (make test builds them, blank), and without a GPU its checker says
in one sentence that it needs one (exit 77), as the lessons do. On a GPU: the lesson's own
function passes (`--solution 1`), the blank task fails with its message, and each typical wrong
answer of tests/tasks/ fails with the message that names its mistake.
"""
import re

import pytest

from conftest import HAS_GPU, ROOT, lines, needs_gpu, run
from lessons import TASKS


def task_number(lesson):
    return lesson.split("_")[0]


def task_program(lesson):
    return ROOT / "build" / "bin" / f"task-{task_number(lesson)}"


def build(lesson, task=None):
    """Builds the task with `task` (a path from the repository's root) as the student's file."""
    target = f"build/bin/task-{task_number(lesson)}"
    return run("make", "--no-print-directory", target, *([f"TASK={task}"] if task else []))


CASES = [(lesson, task, phrase) for lesson, spec in TASKS.items()
         for task, phrase in spec["wrong"].items()]


@pytest.mark.parametrize("lesson", TASKS)
def test_each_task_has_its_files_and_its_page(lesson):
    for name in ("task.c", "task_check.c"):
        assert (ROOT / lesson / name).exists(), f"{lesson} has no {name}"
    for page in ("README.md", "README.zh-CN.md"):
        assert f"make task-{task_number(lesson)}" in (ROOT / lesson / page).read_text(), \
            f"{lesson}/{page} does not give the task's command"
    for task in TASKS[lesson]["wrong"]:
        assert (ROOT / task).exists(), f"{task} is missing"


@pytest.mark.parametrize("lesson", TASKS)
def test_a_task_without_a_gpu_says_so(lesson):
    if HAS_GPU:
        pytest.skip("a GPU is here")
    result = build(lesson)
    assert result.returncode == 0, result.stderr[-400:]
    result = run(task_program(lesson))
    assert result.returncode == 77, f"exit {result.returncode}: {result.stderr[-300:]}"
    assert len(lines(result.stderr)) == 1, result.stderr


@pytest.mark.parametrize("lesson,task,phrase", CASES)
def test_each_wrong_answer_builds(lesson, task, phrase):
    result = build(lesson, task)
    assert result.returncode == 0, result.stderr[-600:]


@needs_gpu
@pytest.mark.parametrize("lesson", TASKS)
def test_the_lessons_own_function_passes(lesson):
    result = build(lesson)
    assert result.returncode == 0, result.stderr[-400:]
    result = run(task_program(lesson), "--solution", "1", timeout=300)
    assert result.returncode == 0 and re.search(r"^PASS: ", result.stdout, re.M), \
        result.stdout[-800:] + result.stderr[-400:]


@needs_gpu
@pytest.mark.parametrize("lesson", TASKS)
def test_the_blank_task_fails_with_its_message(lesson):
    result = build(lesson)
    assert result.returncode == 0, result.stderr[-400:]
    result = run(task_program(lesson), timeout=300)
    assert result.returncode == 1, f"exit {result.returncode}: {result.stdout[-600:]}"
    assert re.search(r"^FAIL: .*" + TASKS[lesson]["blank"], result.stdout, re.M), \
        result.stdout[-600:]


@needs_gpu
@pytest.mark.parametrize("lesson,task,phrase", CASES)
def test_a_typical_wrong_answer_fails_naming_its_mistake(lesson, task, phrase):
    result = build(lesson, task)
    assert result.returncode == 0, result.stderr[-400:]
    result = run(task_program(lesson), timeout=300)
    build(lesson)  # the blank task again, as make task-NN leaves it
    assert result.returncode == 1, f"exit {result.returncode}: {result.stdout[-600:]}"
    assert re.search(r"^FAIL: .*" + phrase, result.stdout, re.M), result.stdout[-600:]
