"""Every shell command a README shows runs as written on a fresh clone of the repository (a copy
of the tree where git is missing), on a machine without a GPU: it succeeds, or the program says
in its one sentence that it needs a GPU. Two are left out and say why: `make test` (this suite),
and nsys where it is not installed."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import HAS_GPU, ROOT, copy_tree, is_git_checkout

NO_GPU_SENTENCE = "needs an NVIDIA GPU: "


def readme_commands():
    readmes = [ROOT / "README.md"] + sorted(ROOT.glob("[0-9][0-9]_*/README.md"))
    for readme in readmes:
        in_block = False
        for number, line in enumerate(readme.read_text().splitlines(), 1):
            if re.match(r"^```(sh|bash|shell)\s*$", line):
                in_block = True
            elif line.startswith("```"):
                in_block = False
            elif in_block and line.strip():
                command = re.sub(r"\s+#[^'\"]*$", "", line).strip()  # a trailing comment
                yield pytest.param(command, id=f"{readme.relative_to(ROOT)}:{number}")


COMMANDS = list(readme_commands())


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A fresh clone of what is committed, as a newcomer gets it; without git, a copy of the
    tree less what git would not track (build/, results/ but its reference, ...)."""
    folder = tmp_path_factory.mktemp("fresh") / "course"
    if is_git_checkout():
        subprocess.run(["git", "clone", "-q", str(ROOT), str(folder)], check=True)
    else:
        copy_tree(folder)
    return folder


def test_the_readmes_show_commands():
    assert len(COMMANDS) >= 15, [c.values[0] for c in COMMANDS]


@pytest.mark.skipif(HAS_GPU, reason="a GPU is here: the commands would measure, for minutes")
@pytest.mark.parametrize("command", COMMANDS)
def test_a_readme_command_runs_as_written(command, clone):
    if command.split()[:2] == ["make", "test"]:
        pytest.skip("make test is this suite")
    if command.startswith("nsys") and not shutil.which("nsys"):
        pytest.skip("nsys is not installed")
    # The suite's own Python has matplotlib: the clone need not download it again.
    result = subprocess.run(["bash", "-c", command], cwd=clone, capture_output=True, text=True,
                            timeout=600, env=dict(os.environ,
                                                  PYTHON=sys.executable))
    output = result.stdout + result.stderr
    assert result.returncode == 0 or NO_GPU_SENTENCE in output, \
        f"exit {result.returncode}: {output[-600:]}"


def test_the_readmes_test_totals_are_the_suites():
    """The README's "N passed, M skipped" of `make test` without a GPU, both editions and both
    pairs (with the Chinese font and without), add up to the tests this suite collects, so that
    adding a test without updating them fails here. Only a whole run without a GPU can tell."""
    from conftest import COLLECTED
    if HAS_GPU or not COLLECTED["whole"]:
        pytest.skip("only `make test` without a GPU collects the suite the README counts")
    for page in ("README.md", "README.zh-CN.md"):
        text = (ROOT / page).read_text()
        pairs = re.findall(r"(\d+) passed(?:[,，、和]| and)*\s*(\d+) skipped", text)
        assert len(pairs) == 2, f"{page}: expected two 'N passed, M skipped' totals, {pairs}"
        for passed, skipped in pairs:
            assert int(passed) + int(skipped) == COLLECTED["count"], \
                f"{page} says {passed} passed and {skipped} skipped, {int(passed) + int(skipped)} " \
                f"tests; the suite has {COLLECTED['count']}: update the totals"
