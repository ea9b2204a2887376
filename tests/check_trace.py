"""Checks lesson 06's timeline: PREFIX.json parses as a Chrome trace and PREFIX.csv matches it;
each run (a serial and a pipelined one) has exactly one H2D copy, one kernel and one D2H copy per
chunk, in one stream and in that order in time, which a wrong pairing of CUPTI's records with
chunks would break; and the serial run keeps the GPU busy (no gap over 1 ms between one operation
and the next), as it does untraced, so the recorder adds no delay of its own. Prints one line per
problem.

usage: python3 tests/check_trace.py PREFIX CHUNKS       exit 0 when the timeline is right
"""
import collections
import csv
import json
import sys


def problems(prefix, chunks):
    try:
        with open(prefix + ".json") as f:
            events = json.load(f)["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        yield f"{prefix}.json: {e}"
        return
    operations = [e for e in events if e.get("ph") == "X"]
    runs = {e["pid"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    if len(runs) != 2:
        yield f"{len(runs)} runs named, want 2 (serial and pipelined)"
    seen = collections.Counter((e["pid"], e["tid"], e["args"]["chunk"]) for e in operations)
    for run in sorted(runs):
        for row in (1, 2, 3):
            for chunk in range(chunks):
                if seen[(run, row, chunk)] != 1:
                    yield (f"run {run}, row {row}, chunk {chunk}: "
                           f"{seen[(run, row, chunk)]} events, want 1")
    if any(e["dur"] <= 0 or e["ts"] < 0 for e in operations):
        yield "an operation has a negative start or no duration"
    chunk_ops = collections.defaultdict(dict)
    for e in operations:
        chunk_ops[(e["pid"], e["args"]["chunk"])][e["tid"]] = e
    for (run, chunk), ops in sorted(chunk_ops.items()):
        if len(ops) != 3:
            continue  # reported above
        copy_in, kernel, copy_out = ops[1], ops[2], ops[3]
        if len({o["args"]["stream"] for o in ops.values()}) != 1:
            yield f"run {run}, chunk {chunk}: its operations are in different streams"
        slack = 0.01  # microseconds of rounding
        if (copy_in["ts"] + copy_in["dur"] > kernel["ts"] + slack or
                kernel["ts"] + kernel["dur"] > copy_out["ts"] + slack):
            yield f"run {run}, chunk {chunk}: copy in, kernel and copy out overlap or are out of order"
    serial = [e["pid"] for e in events
              if e.get("name") == "process_name" and e["args"]["name"].startswith("serial")]
    in_order = sorted((e for e in operations if e["pid"] in serial), key=lambda e: e["ts"])
    for before, after in zip(in_order, in_order[1:]):
        idle_us = after["ts"] - (before["ts"] + before["dur"])
        if idle_us > 1000:
            yield (f"serial run: the GPU idles {idle_us / 1000:.1f} ms before {after['name']}, "
                   f"which the recording itself must have caused")
    with open(prefix + ".csv", newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(operations):
        yield f"{prefix}.csv has {len(rows)} rows, the JSON {len(operations)} operations"
    names = {e["args"]["name"] for e in events if e.get("name") == "process_name"}
    if {r["run"] for r in rows} != names:
        yield f"{prefix}.csv names runs {sorted({r['run'] for r in rows})}, the JSON {sorted(names)}"


if __name__ == "__main__":
    found = list(problems(sys.argv[1], int(sys.argv[2])))
    for p in found[:10]:
        print(p)
    sys.exit(1 if found else 0)
