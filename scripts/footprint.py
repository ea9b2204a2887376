"""footprint.py [--device N] PROGRAM [FLAGS...]: what one run of a lesson or task holds at its
peak, for a teacher deciding how many students share a GPU (docs/teacher.md).

Runs PROGRAM with FLAGS and prints one line: its wall time, its peak host memory (resident set,
from the kernel's rusage), its peak GPU memory (nvidia-smi's memory.used of GPU N above what it
was before the run, sampled every 50 ms, so a CUDA context's own memory included and a peak
shorter than a sample possibly missed), its most threads at once (from /proc, sampled alike),
its exit status and its last PASS, FAIL or verified line. Run it on an otherwise idle GPU:
another process's memory would count as the run's.
"""
import argparse
import pathlib
import re
import resource
import subprocess
import sys
import threading
import time

SAMPLE_S = 0.05


def gpu_used_mib(device):
    try:
        query = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,"
                                "nounits", "-i", str(device)], capture_output=True, text=True)
    except OSError:  # no nvidia-smi: no driver
        return None
    return int(query.stdout.split()[0]) if query.returncode == 0 and query.stdout else None


def threads_of(pid):
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
    except OSError:  # it ended between two samples
        return 0
    return int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if not args.command:
        parser.error("name a program to run")
    before = gpu_used_mib(args.device)
    if before is None:
        sys.exit("footprint: nvidia-smi answers for no GPU "
                 f"{args.device}: this measures runs on a GPU")
    start = time.monotonic()
    process = subprocess.Popen(args.command + ["--device", str(args.device)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = []
    reader = threading.Thread(target=lambda: output.extend(process.stdout), daemon=True)
    reader.start()
    gpu_peak = threads_peak = 0
    while process.poll() is None:
        threads_peak = max(threads_peak, threads_of(process.pid))
        used = gpu_used_mib(args.device)
        gpu_peak = max(gpu_peak, (used or before) - before)
        time.sleep(SAMPLE_S)
    wall = time.monotonic() - start
    reader.join()
    host_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    verdict = [line.strip() for line in output
               if line.startswith(("PASS", "FAIL", "verified", "FAILED"))]
    print(f"{pathlib.Path(args.command[0]).name}: {wall:.1f} s, host {host_peak:.0f} MiB, "
          f"GPU {gpu_peak} MiB, {threads_peak} threads, exit {process.returncode}"
          f"{': ' + verdict[-1][:100] if verdict else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
