"""The suite runs in a copy of the course without git (GitHub's "Download ZIP", `git archive`).

Where git cannot list the tree, conftest.tracked_files() walks it, leaving out what git would not
track; where a test wants a fresh clone, it gets a copy of the tree. These tests hold the walk to
what git lists, and collect the whole suite in a copy without .git, which fails on any test file
that calls git at collection.
"""
import io
import os
import re
import subprocess
import sys
import tarfile

import pytest

from conftest import ROOT, copy_tree, is_git_checkout, tracked_files, tree_files

IN_A_COPY = "COURSE_SUITE_IN_A_COPY"  # set in the copy's run: it does not copy itself again

needs_git = pytest.mark.skipif(not is_git_checkout(),
                               reason="not a git checkout: no git ls-files to compare the walk with")


@needs_git
def test_the_walk_lists_what_git_would():
    """The tree's files, walked, are what git tracks and what it would add: no more, no less."""
    def git(*args):
        return subprocess.run(["git", "-c", "core.excludesFile=/dev/null", "ls-files", "-z",
                               *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.split("\0")[:-1]
    tracked = {p for p in git() if (ROOT / p).is_file()}
    expected = tracked | set(git("--others", "--exclude-standard"))
    walked = set(tree_files())
    assert walked == expected, (f"walked, not listed: {sorted(walked - expected)[:10]}; "
                                f"listed, not walked: {sorted(expected - walked)[:10]}")


def make_tree(root):
    for path in ("README.md", "a/page.md", "a/page.zh-CN.md", "a/main.c", "build/bin/x.md",
                 ".venv/lib/x.md", "plots/out/x.png", "plots/plot.py", "results/reference/h/l.csv",
                 "results/run/l.csv", "results/x.md", "tests/__pycache__/t.pyc", "a/b/c.log",
                 ".git/HEAD"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x\n")
    (root / ".gitignore").write_text("# a comment\n*.log\nresults/*\n!results/reference/\n")
    return root


KEPT = [".gitignore", "README.md", "a/main.c", "a/page.md", "a/page.zh-CN.md", "plots/plot.py",
        "results/reference/h/l.csv"]


def test_the_walk_leaves_out_what_git_would_not_track(tmp_path):
    root = make_tree(tmp_path / "course")
    assert not is_git_checkout(root)
    assert tree_files(root) == KEPT
    assert tracked_files("*.md", root=root) == ["README.md", "a/page.md", "a/page.zh-CN.md"]
    assert tracked_files("a", "*.csv", root=root) == [
        "a/main.c", "a/page.md", "a/page.zh-CN.md", "results/reference/h/l.csv"]


def test_the_copy_leaves_out_what_the_walk_does(tmp_path):
    root = make_tree(tmp_path / "course")
    copy = copy_tree(tmp_path / "copy", root=root)
    copied = sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file())
    assert copied == KEPT


def copy_without_git(target):
    """What a newcomer downloads: `git archive HEAD` in a checkout, else the tree, less .git."""
    if is_git_checkout():
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(target, filter="tar") if hasattr(tarfile, "data_filter") \
                else tar.extractall(target)
    else:
        copy_tree(target)
    assert not (target / ".git").exists()
    return target


@pytest.mark.skipif(bool(os.environ.get(IN_A_COPY)), reason="this run is the copy's own")
def test_the_suite_collects_in_a_copy_without_git(tmp_path):
    copy = copy_without_git(tmp_path / "course")
    # test_cli.py asks the programs for their flags at collection: the copy sees this tree's
    # build/, which `make test` has just made, rather than building its own.
    if (ROOT / "build").is_dir():
        (copy / "build").symlink_to(ROOT / "build", target_is_directory=True)
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                             "-p", "no:cacheprovider", "tests"], cwd=copy, capture_output=True,
                            text=True, timeout=120, env=dict(os.environ, **{IN_A_COPY: "1"}))
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"exit {result.returncode}: {output[-1500:]}"
    summary = (result.stdout.strip().splitlines() or [""])[-1]
    assert re.fullmatch(r"\d+ tests? collected in [0-9.]+s", summary), output[-1500:]
    uncollected = [f.name for f in sorted((copy / "tests").glob("test_*.py"))
                   if f"tests/{f.name}::" not in output]
    assert not uncollected, f"no test collected from {uncollected}"
