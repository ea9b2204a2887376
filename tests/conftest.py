"""What the test files share: where the programs are, whether a GPU is here, how to run one.

The suite behind `make test`, which builds everything first. What needs a GPU runs when the
driver reports one, and is skipped, and counted, when not.
"""
import fnmatch
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from lessons import SMALL_ARGS

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = os.environ.get("LESSONS", " ".join(SMALL_ARGS)).split()


# ---------------------------------------------------------------- the tree, with or without git
# A copy of the course without git (GitHub's "Download ZIP", `git archive`) runs the suite too:
# where git cannot list the tree, the suite walks it, and skips what git would not track.
SKIPPED_DIRS = ("build", ".venv", "plots/out", ".git")  # and __pycache__, and results/* but one
KEPT_RESULTS = "reference"


def is_git_checkout(root=ROOT):
    """Whether git is installed and root is the top of a checkout (not a folder inside another)."""
    if not shutil.which("git"):
        return False
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True,
                         text=True)
    return top.returncode == 0 and pathlib.Path(top.stdout.strip()).resolve() == root.resolve()


def _glob_regex(pattern):
    """A .gitignore glob as a regex over a path: * and ? stop at /, ** crosses it."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _ignore_rules(root):
    """(negated, directories only, anchored, regex) for each line of .gitignore, and of
    .git/info/exclude where there is one; the last rule that matches a path decides."""
    rules = []
    for name in (".gitignore", ".git/info/exclude"):
        path = root / name
        for line in (path.read_text().splitlines() if path.is_file() else []):
            line = line.rstrip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            line = line.lstrip("!")
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            rules.append((negated, dir_only, anchored, _glob_regex(line.lstrip("/"))))
    return rules


def _ignored(rel, is_dir, rules):
    """Whether the path rel (relative to the root, with /) is left out of the tree."""
    parts = rel.split("/")
    if is_dir and (rel in SKIPPED_DIRS or parts[-1] == "__pycache__" or
                   (len(parts) == 2 and parts[0] == "results" and parts[1] != KEPT_RESULTS)):
        return True
    ignored = False
    for negated, dir_only, anchored, regex in rules:
        if dir_only and not is_dir:
            continue
        if regex.match(rel if anchored else parts[-1]):
            ignored = not negated
    return ignored


def tree_files(root=ROOT):
    """Every file of the tree that git would track: the walk, for a tree without git."""
    rules, found = _ignore_rules(root), []
    for folder, dirs, files in os.walk(root):
        base = pathlib.Path(folder).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        dirs[:] = sorted(d for d in dirs if not _ignored(prefix + d, True, rules))
        found += [prefix + f for f in files if not _ignored(prefix + f, False, rules)]
    return sorted(found)


def _pathspec_matches(path, pattern):
    """`git ls-files PATTERN`'s match: a glob whose * crosses /, or a file, or a folder."""
    return (fnmatch.fnmatchcase(path, pattern) or path == pattern.rstrip("/")
            or path.startswith(pattern.rstrip("/") + "/"))


def tracked_files(*patterns, root=ROOT):
    """The files under root that match a pattern (every file without one), as paths relative to
    root: `git ls-files` in a git checkout, the walk of tree_files() without git."""
    if is_git_checkout(root):
        return sorted(subprocess.run(["git", "ls-files", "-z", *patterns], cwd=root,
                                     capture_output=True, text=True,
                                     check=True).stdout.split("\0")[:-1])
    return [p for p in tree_files(root)
            if not patterns or any(_pathspec_matches(p, pattern) for pattern in patterns)]


def copy_tree(target, root=ROOT):
    """Copies the tree to target, leaving out what tree_files() leaves out (.git with it)."""
    rules = _ignore_rules(root)

    def leave_out(folder, names):
        base = pathlib.Path(folder).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        return {n for n in names if _ignored(prefix + n, os.path.isdir(os.path.join(folder, n)),
                                             rules)}

    shutil.copytree(root, target, ignore=leave_out, symlinks=True)
    return target


def run(*command, timeout=600, env=None):
    """Runs a command from the repository's root; a command that times out gets exit code 124."""
    full_env = dict(os.environ, **(env or {}))
    try:
        return subprocess.run([str(c) for c in command], capture_output=True, text=True,
                              errors="replace", timeout=timeout, env=full_env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 124, "", f"timed out after {timeout} s")


def program(lesson):
    return ROOT / "build" / "bin" / lesson


def lines(text):
    return text.splitlines()


# Whether there is a GPU is asked of the driver, not of the programs under test.
HAS_GPU = "GPU " in run("sh", "-c", "nvidia-smi -L 2>/dev/null").stdout
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no GPU here")


# How many tests this session collected, and whether it is the whole suite (`make test`: the tests
# folder, no -k or -m), for the README's totals (test_the_readmes_test_totals_are_the_suites).
COLLECTED = {"count": 0, "whole": False}


def pytest_collection_modifyitems(session, config, items):
    whole_folder = [pathlib.Path(arg).resolve() for arg in config.args] == [ROOT / "tests"]
    COLLECTED.update(count=len(items), whole=whole_folder and not config.option.keyword and
                     not config.option.markexpr and not config.option.deselect)


def pytest_terminal_summary(terminalreporter):
    import test_cli
    terminalreporter.write_line(f"bad command lines: {len(test_cli.BAD)}, each to be refused "
                                "with exit 2 and one line")
