"""Checks lesson 06's timeline: PREFIX.json parses as a Chrome trace and PREFIX.csv matches it;
it holds the runs expected (serial and pipelined from the default run; by role and staged too
under --deep all); each run has exactly one H2D copy, one kernel and
one D2H copy per chunk, in that order in time, and in one stream but by role, which a wrong
pairing of CUPTI's records with chunks would break; the staged run's CPU copies of each chunk
(from the host clock, put on CUPTI's time base) move the chunk's bytes, end before its H2D copy
starts and start after its D2H copy ends, which a wrong time base would break; and the serial run
keeps the GPU busy (no gap over 1 ms between one operation and the next), as it does untraced, so
the recorder adds no delay of its own. Prints one line per problem.

usage: python3 tests/check_trace.py PREFIX CHUNKS [core]   exit 0 when the timeline is right
       (core: the default run's two runs only)
"""
import collections
import csv
import json
import sys


CPU_TID = 10  # the trace's thread ids of CPU threads start here
CORE_RUNS = ("serial", "pipelined")                 # the default run's
RUNS = CORE_RUNS + ("by role", "staged")            # with --deep all (by-role, staged)
SLACK_US = 20  # the host clock's spans against CUPTI's records: the time base, and rounding


def cpu_problems(everything, chunk_ops, named, chunks):
    staged = [pid for pid, name in named.items() if name.startswith("staged")]
    spans = collections.defaultdict(list)
    for e in everything:
        if e["tid"] >= CPU_TID and e["pid"] in staged:
            spans[(e["pid"], e["args"]["chunk"], e["name"].split()[0])].append(e)
    for run in staged:
        for chunk in range(chunks):
            ops = chunk_ops.get((run, chunk), {})
            prepare, process = spans[(run, chunk, "prepare")], spans[(run, chunk, "process")]
            if len(ops) != 3 or not prepare or not process:
                yield f"staged run, chunk {chunk}: CPU copies or GPU operations missing"
                continue
            for what, found in (("prepare", prepare), ("process", process)):
                if sum(e["args"]["bytes"] for e in found) != ops[1]["args"]["bytes"]:
                    yield f"staged run, chunk {chunk}: the {what} copies move other bytes"
            if max(e["ts"] + e["dur"] for e in prepare) > ops[1]["ts"] + SLACK_US:
                yield f"staged run, chunk {chunk}: prepared after its H2D copy started"
            if min(e["ts"] for e in process) < ops[3]["ts"] + ops[3]["dur"] - SLACK_US:
                yield f"staged run, chunk {chunk}: processed before its D2H copy ended"


def problems(prefix, chunks, runs_wanted=RUNS):
    try:
        with open(prefix + ".json") as f:
            events = json.load(f)["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        yield f"{prefix}.json: {e}"
        return
    everything = [e for e in events if e.get("ph") == "X"]
    operations = [e for e in everything if e["tid"] < CPU_TID]
    named = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e["name"] == "process_name"}
    runs = set(named)
    if sorted(name.split(":")[0] for name in named.values()) != sorted(runs_wanted):
        yield f"runs named {sorted(named.values())}, want {', '.join(runs_wanted)}"
    seen = collections.Counter((e["pid"], e["tid"], e["args"]["chunk"]) for e in operations)
    for run in sorted(runs):
        for row in (1, 2, 3):
            for chunk in range(chunks):
                if seen[(run, row, chunk)] != 1:
                    yield (f"run {run}, row {row}, chunk {chunk}: "
                           f"{seen[(run, row, chunk)]} events, want 1")
    if any(e["dur"] <= 0 or e["ts"] < 0 for e in everything):
        yield "an operation has a negative start or no duration"
    chunk_ops = collections.defaultdict(dict)
    for e in operations:
        chunk_ops[(e["pid"], e["args"]["chunk"])][e["tid"]] = e
    for (run, chunk), ops in sorted(chunk_ops.items()):
        if len(ops) != 3:
            continue  # reported above
        copy_in, kernel, copy_out = ops[1], ops[2], ops[3]
        if (len({o["args"]["stream"] for o in ops.values()}) != 1 and
                not named.get(run, "").startswith("by role")):
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
    yield from cpu_problems(everything, chunk_ops, named, chunks)
    with open(prefix + ".csv", newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(everything):
        yield f"{prefix}.csv has {len(rows)} rows, the JSON {len(everything)} operations"
    names = {e["args"]["name"] for e in events if e.get("name") == "process_name"}
    if {r["run"] for r in rows} != names:
        yield f"{prefix}.csv names runs {sorted({r['run'] for r in rows})}, the JSON {sorted(names)}"


if __name__ == "__main__":
    wanted = CORE_RUNS if sys.argv[3:] == ["core"] else RUNS
    found = list(problems(sys.argv[1], int(sys.argv[2]), wanted))
    for p in found[:10]:
        print(p)
    sys.exit(1 if found else 0)
