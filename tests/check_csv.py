"""Checks a lesson's CSV against the course schema (CONTRIBUTING.md); prints one line per problem.

usage: python3 tests/check_csv.py FILE LESSON MIN_ROWS     exit 0 when the file is right
"""
import csv
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "plots"))
from plot_all import COLUMNS  # noqa: E402  (the plots read what this checks: one list of columns)

DIRECTIONS = {"H2D", "D2H", "both", "none"}


def problems(path, lesson, min_rows):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != COLUMNS:
        yield f"header is {rows[0] if rows else 'missing'}, want {COLUMNS}"
        return
    body = rows[1:]
    if len(body) < min_rows:
        yield f"{len(body)} rows, want at least {min_rows}"
    for n, row in enumerate(body, start=2):
        if len(row) != len(COLUMNS):
            yield f"line {n}: {len(row)} fields, want {len(COLUMNS)}"
            continue
        r = dict(zip(COLUMNS, row))
        if r["lesson"] != lesson:
            yield f"line {n}: lesson {r['lesson']!r}, want {lesson!r}"
        if r["direction"] not in DIRECTIONS:
            yield f"line {n}: direction {r['direction']!r} not in {sorted(DIRECTIONS)}"
        for key in ("experiment", "variant", "gpu", "cc", "driver", "runtime"):
            if not r[key]:
                yield f"line {n}: {key} is empty"
        try:
            if int(r["bytes"]) < 0 or int(r["reps"]) < 1:
                yield f"line {n}: bytes {r['bytes']} or reps {r['reps']} out of range"
            lo, med, hi = float(r["min_ms"]), float(r["median_ms"]), float(r["max_ms"])
            if not (0 < lo <= med <= hi and math.isfinite(hi)):
                yield f"line {n}: want 0 < min <= median <= max, got {lo} {med} {hi}"
            if r["gbps"] and not float(r["gbps"]) > 0:
                yield f"line {n}: gbps {r['gbps']} is not positive"
        except ValueError as e:
            yield f"line {n}: {e}"


if __name__ == "__main__":
    found = list(problems(sys.argv[1], sys.argv[2], int(sys.argv[3])))
    for p in found[:10]:
        print(p)
    sys.exit(1 if found else 0)
