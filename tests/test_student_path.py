"""The student's path: every lesson readable in one sitting, the deep measurements one step away.

A lesson is two layers. What a student reads first (main.c, or the files tests/lessons.py lists
under STUDENT_READS) is short; the rest of what the lesson measures lives in files named for what
they measure, run by `--deep PARTS`, and explained on the lesson's DEEP.md. These tests hold the
limits that keep it so: the lines a student reads, the length of every file and function, the
words of a student page, and no commit hash in a page a reader sees.
"""
import pathlib
import re

import pytest

from conftest import LESSONS, ROOT, needs_gpu, program, run, tracked_files
from lessons import STUDENT_READS, small_args

MAIN_LINES = 250        # the file a student page sends a reader to first
STUDENT_LINES = 500     # all that a student is asked to read in a lesson
FILE_LINES = 400        # every other file of a lesson
FUNCTION_LINES = 60     # from the `{` in column 0 to the `}` in column 0
PAGE_WORDS = {"06_overlap_pipeline": 2000}  # a student page's prose; the others:
DEFAULT_PAGE_WORDS = 1200
DEFAULT_OUTPUT_LINES = 45  # "at most about 40 lines" that show the lecture's point
TOP_README_WORDS = 1500
FIRST_COMMAND_LINES, FIRST_COMMAND_WORDS = 40, 300

# A commit hash: 7 to 12 hex digits with at least one letter and one digit, not part of a word,
# a path or an anchor.
COMMIT_HASH = re.compile(r"(?<![\w/#.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}(?![\w-])")
PAGES_WITHOUT_HISTORY = re.compile(r"^(?!CONTRIBUTING)")  # CONTRIBUTING keeps the history


def prose_words(markdown):
    """Words outside fenced code blocks and <details> blocks, link targets and tags dropped."""
    kept, fence, details = [], False, 0
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        details += line.count("<details") - line.count("</details>")
        if details > 0 or "</details>" in line:
            continue
        line = re.sub(r"\]\([^)]*\)", "]", line)
        kept.append(re.sub(r"<[^>]+>", " ", line))
    return len(re.findall(r"[A-Za-z0-9][\w'.,%/-]*", "\n".join(kept)))


def long_functions(source):
    """(first line, length) of each function whose body runs over FUNCTION_LINES lines."""
    found, start = [], None
    for number, line in enumerate(source.splitlines(), 1):
        if line.startswith("{"):
            start = number
        elif line.startswith("}") and start is not None:
            if number - start + 1 > FUNCTION_LINES:
                found.append((start, number - start + 1))
            start = None
    return found


def lesson_sources(lesson):
    folder = ROOT / lesson
    return sorted(p for p in folder.iterdir() if p.suffix in (".c", ".cu", ".h"))


@pytest.mark.parametrize("lesson", LESSONS)
def test_what_a_student_reads_is_short(lesson):
    reads = STUDENT_READS[lesson]
    assert reads[0] == "main.c" or lesson == "05_raii_style_c", reads
    counts = {name: len((ROOT / lesson / name).read_text().splitlines()) for name in reads}
    first = counts[reads[0]]
    assert first <= MAIN_LINES, f"{lesson}/{reads[0]}: {first} lines (at most {MAIN_LINES})"
    assert sum(counts.values()) <= STUDENT_LINES, f"{lesson}: a student reads {counts}"
    page = (ROOT / lesson / "README.md").read_text()
    for name in reads:
        assert name in page, f"{lesson}/README.md does not send the student to {name}"


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_file_and_function_of_a_lesson_is_short(lesson):
    problems = []
    for path in lesson_sources(lesson):
        text = path.read_text()
        n = len(text.splitlines())
        if n > FILE_LINES:
            problems.append(f"{path.name}: {n} lines (at most {FILE_LINES})")
        problems += [f"{path.name}:{start}: a function of {length} lines (at most "
                     f"{FUNCTION_LINES})" for start, length in long_functions(text)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lesson", LESSONS)
def test_nothing_calls_back_into_main(lesson):
    """main.c defines main() and static functions only, so no other file can call into it: its
    object (which `make test` builds) exports no other symbol."""
    obj = ROOT / "build" / "obj" / lesson / "main.c.o"
    if not obj.exists():
        pytest.skip(f"{obj} is not built (make test builds it)")
    symbols = run("nm", "--defined-only", "-g", obj).stdout.split("\n")
    exported = [line.split()[-1] for line in symbols if line.strip()]
    assert exported == ["main"], f"{lesson}/main.c exports {exported}"


def test_the_function_rule_catches_a_long_function():
    body = "\n".join(["int f(void)", "{"] + ["    x++;"] * FUNCTION_LINES + ["}"])
    assert long_functions(body) == [(2, FUNCTION_LINES + 2)]
    assert long_functions("int g(void)\n{\n    return 0;\n}\n") == []


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_student_page_reads_in_one_sitting(lesson):
    limit = PAGE_WORDS.get(lesson, DEFAULT_PAGE_WORDS)
    words = prose_words((ROOT / lesson / "README.md").read_text())
    assert words <= limit, f"{lesson}/README.md: {words} words of prose (at most {limit})"


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_deep_page_is_one_step_away(lesson):
    for page, deep in (("README.md", "DEEP.md"), ("README.zh-CN.md", "DEEP.zh-CN.md")):
        assert (ROOT / lesson / deep).exists(), f"{lesson} has no {deep}"
        assert f"]({deep}" in (ROOT / lesson / page).read_text(), f"{lesson}/{page} links no {deep}"


def test_the_word_count_skips_code_and_answers():
    page = "One two three.\n```\nfour five\n```\n<details>\nsix seven\n</details>\n[eight](x.md)\n"
    assert prose_words(page) == 4


def test_no_commit_hash_in_a_page():
    found = []
    for page in tracked_files("*.md"):
        if not PAGES_WITHOUT_HISTORY.match(page):
            continue
        for number, line in enumerate((ROOT / page).read_text().splitlines(), 1):
            found += [f"{page}:{number}: {h}" for h in COMMIT_HASH.findall(line)]
    assert not found, "commit hashes in pages a reader sees (quote this run's figure):\n" + \
        "\n".join(found[:20])


def test_the_hash_rule_catches_a_hash_and_spares_a_word():
    assert COMMIT_HASH.findall("measured at 5858b80, then") == ["5858b80"]
    assert not COMMIT_HASH.findall("deadbeef 1234567 sm_90a0b1c2 #a1b2c3d4 docs/a1b2c3d4")


def test_the_top_readme_starts_with_a_command():
    text = (ROOT / "README.md").read_text()
    assert prose_words(text) <= TOP_README_WORDS, f"README.md: {prose_words(text)} words"
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("make "))
    assert first < FIRST_COMMAND_LINES, f"the first command is on line {first + 1}"
    before = prose_words("\n".join(lines[:first]))
    assert before <= FIRST_COMMAND_WORDS, f"{before} words before the first command"


@needs_gpu
@pytest.mark.parametrize("lesson", LESSONS)
def test_the_default_run_is_short(lesson):
    """The default run shows the lecture's point in about 40 lines; --deep all adds the rest."""
    args = [a for a in small_args(lesson)]
    deep = args.index("--deep")
    core = args[:deep] + args[deep + 2:]
    result = run(program(lesson), *core)
    assert result.returncode == 0, result.stderr[-400:]
    n = len(result.stdout.splitlines())
    assert n <= DEFAULT_OUTPUT_LINES, f"{lesson}: the default run printed {n} lines"
