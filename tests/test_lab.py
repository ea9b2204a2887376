"""The lab preset, LAB=1 (scripts/lab.args): every lesson and every task in smaller runs, for a
class sharing GPUs.

Everywhere: each lesson and each task has its line, every flag on it is one its program takes,
`make run-NN LAB=1` and `make task-NN LAB=1` pass them on, and the plots leave a lab run's
results out. On a GPU: `make run-all LAB=1`'s script runs every lesson verified and every task
to its verdict in at most LAB_SECONDS, no run using more CPU threads than the machine has.
"""
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest

from conftest import HAS_GPU, LESSONS, ROOT, needs_gpu, program, run
from lessons import TASKS

LAB_ARGS = ROOT / "scripts" / "lab.args"
LAB_SECONDS = 20  # the "at most 20 s per student on the H200"


def lab_lines():
    """{program name: its flags} of scripts/lab.args."""
    entries = {}
    for line in LAB_ARGS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, flags = line.partition(" ")
            assert name not in entries, f"{name} has two lines in scripts/lab.args"
            entries[name] = flags.split()
    return entries


def task_name(lesson):
    return "task-" + lesson.split("_")[0]


def test_each_lesson_and_task_has_its_lab_flags():
    entries = lab_lines()
    wanted = set(LESSONS) | {task_name(lesson) for lesson in TASKS}
    assert set(entries) == wanted, f"scripts/lab.args: {sorted(set(entries) ^ wanted)}"


@pytest.mark.parametrize("name", sorted(lab_lines()))
def test_the_lab_flags_are_the_programs_own(name):
    """Every flag parsed before --help, which then ends the run: a flag refused ends it with 2."""
    if name.startswith("task-"):
        built = run("make", "--no-print-directory", f"build/bin/{name}")
        assert built.returncode == 0, built.stderr[-400:]
        path = ROOT / "build" / "bin" / name
    else:
        path = program(name)
    result = run(path, *lab_lines()[name], "--help")
    assert result.returncode == 0, f"{name} refused its lab flags: {result.stderr[-300:]}"


@pytest.mark.parametrize("target,name", [("run-01", "01_sync_copy"), ("task-06", "task-06")])
def test_make_passes_the_lab_flags_on(target, name):
    dry = run("make", "--no-print-directory", "-n", target, "LAB=1", "ARGS=--reps 4")
    flags = " ".join(lab_lines()[name])
    assert f"{flags} --reps 4" in dry.stdout, dry.stdout[-400:]
    plain = run("make", "--no-print-directory", "-n", target)
    assert flags not in plain.stdout, plain.stdout[-400:]


def test_the_plots_leave_a_lab_run_out(tmp_path):
    sys.path.insert(0, str(ROOT / "plots"))
    import plot_all
    reference = next((ROOT / "results" / "reference").iterdir())
    for name, mode in (("lab", "lab (each lesson ...)"), ("classroom", "classroom (...)")):
        folder = tmp_path / name / reference.name
        folder.mkdir(parents=True)
        (folder / "01_sync_copy.csv").write_text((reference / "01_sync_copy.csv").read_text())
        (folder / "meta.txt").write_text(f"gpu: {name}\nmode: {mode}\n")
    assert [s.folder.parent.name for s in plot_all.find_result_sets(tmp_path)] == ["classroom"]


@needs_gpu
def test_the_lab_preset_runs_everything_in_its_time(tmp_path):
    result = run("bash", ROOT / "scripts" / "run_all.sh", *LESSONS, timeout=300,
                 env={"LAB": "1", "RESULTS_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stdout[-1500:] + result.stderr[-400:]
    folder = next((tmp_path / "lab").iterdir())
    meta = (folder / "meta.txt").read_text()
    assert "mode: lab" in meta, meta
    seconds = float(re.search(r"^seconds: ([\d.]+)", meta, re.M).group(1))
    assert seconds <= LAB_SECONDS, f"the lab preset took {seconds} s, over {LAB_SECONDS}"
    for lesson in LESSONS:
        assert re.search(rf"^  {lesson} +verified", result.stdout, re.M), result.stdout[-1500:]
    for lesson in TASKS:
        log = (folder / f"{task_name(lesson)}.log").read_text()
        assert re.search(r"^(PASS|FAIL): ", log, re.M), log[-600:]
    assert not list(folder.glob("*_trace.*")), "the lab preset wrote 06's timeline"


@needs_gpu
@pytest.mark.parametrize("name", sorted(lab_lines()))
def test_a_lab_run_uses_no_more_threads_than_cpus(name):
    """Counted from /proc while the program runs: its threads at the most, against the CPUs it may
    run on (os.sched_getaffinity), as the teacher's guide promises."""
    path = (ROOT / "build" / "bin" / name) if name.startswith("task-") else program(name)
    process = subprocess.Popen([str(path), *lab_lines()[name]], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    most = 0
    while process.poll() is None:
        try:
            status = pathlib.Path(f"/proc/{process.pid}/status").read_text()
            most = max(most, int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1)))
        except (OSError, AttributeError):  # it ended between the poll and the read
            pass
        time.sleep(0.02)
    assert process.returncode in (0, 1), f"{name} ended with exit {process.returncode}"
    assert most <= len(os.sched_getaffinity(0)), f"{name} ran {most} threads"


def test_footprint_needs_a_gpu_and_says_so():
    if HAS_GPU:
        pytest.skip("a GPU is here: test_the_footprint_of_a_lab_run measures")
    result = run(sys.executable, ROOT / "scripts" / "footprint.py", program("01_sync_copy"))
    assert result.returncode == 1 and "nvidia-smi answers for no GPU 0" in result.stderr, \
        result.stderr[-300:]


@needs_gpu
def test_the_footprint_of_a_lab_run():
    result = run(sys.executable, ROOT / "scripts" / "footprint.py", program("02_streams"),
                 *lab_lines()["02_streams"])
    found = re.search(r"^02_streams: [\d.]+ s, host (\d+) MiB, GPU (\d+) MiB, (\d+) threads, "
                      r"exit 0: verified", result.stdout, re.M)
    assert found, result.stdout + result.stderr[-300:]
    assert int(found.group(1)) > 0 and int(found.group(2)) > 0, result.stdout
