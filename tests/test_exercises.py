"""Every exercise of every lesson page runs without editing the code, and its answer holds.

Everywhere: each lesson has `--exercise N` for each exercise its page lists, and no more; each
exercise has its answer in the teacher's edition (docs/answers.md, docs/answers.zh-CN.md), not on
the student's page; the answer names the reference log it quotes and ends with what other GPUs
show; and every measured figure of an answer before that (a number with a decimal point, or with
a unit) is in that log, so an answer cannot outlive the reference it was measured from.
On a GPU: every exercise runs, writes its answer rows, and comes out as its answer says (the
race an exercise predicts is caught by verification, for instance).
"""
import re

import pytest

import check_csv
from conftest import LESSONS, ROOT, needs_gpu, program, run
from lessons import EXERCISE_OUTCOMES

REFERENCE = ROOT / "results" / "reference" / "nvidia-h200"
# The teacher's edition of each page's answers, and how it heads an exercise's answer.
ANSWERS = {"README.md": ("docs/answers.md", "Exercise"),
           "README.zh-CN.md": ("docs/answers.zh-CN.md", "练习")}
# Each answer ends with what other GPUs show, after this; figures there are not the reference's.
OTHER_GPUS = {"README.md": "**Other GPUs:**", "README.zh-CN.md": "**其他 GPU：**"}
# A measured figure: a number with a decimal point, or a number with a unit of time, rate or share
# ("12 ms", "95%", "1.9x"). Counts, sizes and flags are the exercise's settings, not its findings.
FIGURE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?=\s?(?:ms|µs|us|GB/s|%|x\b))|(?<![\w.])\d+\.\d+")
LOG = re.compile(r"results/reference/[\w.-]+/[\w.-]+\.log")


EXERCISES = {"README.md": "\n## Exercises\n", "README.zh-CN.md": "\n## 练习\n"}


def exercises(readme):
    """[(number, text up to the next exercise), ...] of the README's Exercises section."""
    text = readme.read_text()
    heading = EXERCISES[readme.name]
    assert heading in text, f"{readme} has no section {heading.strip()}"
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    section = text[start:end if end >= 0 else len(text)]
    items = list(re.finditer(r"(?m)^(\d+)\. ", section))
    return [(int(m.group(1)), section[m.start():items[i + 1].start() if i + 1 < len(items)
                                      else len(section)]) for i, m in enumerate(items)]


def cases():
    for lesson in LESSONS:
        for number, _ in exercises(ROOT / lesson / "README.md"):
            yield pytest.param(lesson, number, id=f"{lesson} --exercise {number}")


CASES = list(cases())


@pytest.mark.parametrize("lesson", LESSONS)
def test_each_exercise_has_a_switch_and_no_more(lesson):
    count = len(exercises(ROOT / lesson / "README.md"))
    assert count, f"{lesson}/README.md lists no exercises"
    assert "--exercise" in run(program(lesson), "--help").stdout
    beyond = run(program(lesson), "--exercise", count + 1)
    assert beyond.returncode == 2, \
        f"--exercise {count + 1} was not refused: the README lists {count}"


def answers(readme, lesson):
    """{exercise number: its answer} of `lesson` in the teacher's edition for `readme`."""
    page, word = ANSWERS[readme]
    text = (ROOT / page).read_text()
    start = text.find(f"\n## {lesson}\n")
    if start < 0:
        return {}
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    parts = re.split(rf"(?m)^### {word} (\d+)\n", section)
    return {int(number): body for number, body in zip(parts[1::2], parts[2::2])}


@pytest.mark.parametrize("readme", ["README.md", "README.zh-CN.md"])
@pytest.mark.parametrize("lesson", LESSONS)
def test_the_answers_are_in_the_teachers_edition_only(lesson, readme):
    page = (ROOT / lesson / readme).read_text()
    assert "<details>" not in page, f"{lesson}/{readme} still holds an answer"
    numbers = [number for number, _ in exercises(ROOT / lesson / readme)]
    assert sorted(answers(readme, lesson)) == numbers, \
        f"{ANSWERS[readme][0]} answers {sorted(answers(readme, lesson))} of {lesson}'s {numbers}"
    assert f"{ANSWERS[readme][0].split('/')[-1]}#{lesson}" in page, \
        f"{lesson}/{readme} does not link its answers in the teacher's edition once"


@pytest.mark.parametrize("readme", ["README.md", "README.zh-CN.md"])
@pytest.mark.parametrize("lesson", LESSONS)
def test_each_exercise_has_an_answer_from_the_reference(lesson, readme):
    problems = []
    for number, text in sorted(answers(readme, lesson).items()):
        answer, other_gpus, _ = text.partition(OTHER_GPUS[readme])
        if not other_gpus:
            problems.append(f"exercise {number}: the answer says nothing of other GPUs "
                            f"({OTHER_GPUS[readme]})")
        logs = LOG.findall(answer)
        if not logs:
            problems.append(f"exercise {number}: the answer names no reference log")
            continue
        printed = ""
        for log in logs:
            path = ROOT / log
            if not path.exists():
                problems.append(f"exercise {number}: {log} does not exist")
                continue
            printed += path.read_text()
        found = set(re.findall(r"(?<![\w.])\d+(?:\.\d+)?", printed))
        figures = set(FIGURE.findall(LOG.sub("", answer)))
        missing = sorted(figures - found, key=float)
        if missing:
            problems.append(f"exercise {number}: {missing} are in no log it names ({logs})")
    assert not problems, f"{ANSWERS[readme][0]}, {lesson}:\n" + "\n".join(problems)


@needs_gpu
@pytest.mark.parametrize("lesson,number", CASES)
def test_exercise_runs_and_comes_out_as_its_answer_says(lesson, number, tmp_path):
    csv = tmp_path / f"{lesson}_exercises.csv"
    result = run(program(lesson), "--exercise", number, "--csv", csv, timeout=900)
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr[-600:]}"
    assert re.search(rf"^exercise {number} of \d+: ", result.stdout, re.M)
    assert re.search(rf"^answer {number}, ", result.stdout, re.M), result.stdout[-600:]
    assert re.search(r"^  (reference, |no reference for )", result.stdout, re.M)
    outcome = EXERCISE_OUTCOMES.get((lesson, number))
    if outcome:
        assert re.search(outcome, result.stdout, re.M), \
            f"the outcome /{outcome}/ is not in:\n{result.stdout[-1200:]}"
    problems = list(check_csv.problems(csv, lesson, 1))
    assert not problems, "\n".join(problems[:10])
