"""What the test files share: where the programs are, whether a GPU is here, how to run one.

The suite behind `make test`, which builds everything first. What needs a GPU runs when the
driver reports one, and is skipped, and counted, when not.
"""
import os
import pathlib
import subprocess

import pytest

from lessons import SMALL_ARGS

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = os.environ.get("LESSONS", " ".join(SMALL_ARGS)).split()


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


def pytest_terminal_summary(terminalreporter):
    import test_cli
    terminalreporter.write_line(f"bad command lines: {len(test_cli.BAD)}, each to be refused "
                                "with exit 2 and one line")
