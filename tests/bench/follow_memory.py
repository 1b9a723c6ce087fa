#!/usr/bin/env python3
"""Resident memory of `ampscope-cli follow --once` over a record stream, measured. Not a test.

    follow_memory.py CLI STREAM [--every-records N]

Runs CLI follow --once STREAM, counts the record lines it prints as they come, and prints the
process's resident set (VmRSS) and its peak so far (VmHWM) every N records (default 100,000), then the
peak of the whole run (getrusage of the child), the wall time, the CLI's summary, and the CPU model.
STREAM is any record stream; follow_stream_gen.py writes the ones of docs/following.md.
"""
import argparse
import os
import resource
import subprocess
import sys
import time


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def status_kib(pid, key):
    try:
        with open("/proc/%d/status" % pid, encoding="utf-8") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cli")
    parser.add_argument("stream")
    parser.add_argument("--every-records", type=int, default=100000)
    args = parser.parse_args()
    print("CPU: %s, %d cores online" % (cpu_model(), os.cpu_count() or 0))
    print("stream: %s (%.1f MB)" % (args.stream, os.path.getsize(args.stream) / 1e6))
    start = time.monotonic()
    child = subprocess.Popen([args.cli, "follow", "--once", args.stream], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, bufsize=1 << 20)
    records = 0
    summary = []
    in_summary = False
    for line in child.stdout:
        if in_summary:
            summary.append(line.rstrip("\n"))
        elif line == "\n":
            in_summary = True
        else:
            records += 1
            if records % args.every_records == 0:
                print("  after %8d records: RSS %7.1f MiB, peak %7.1f MiB (%.1f s)" %
                      (records, status_kib(child.pid, "VmRSS") / 1024, status_kib(child.pid, "VmHWM") / 1024,
                       time.monotonic() - start), flush=True)
    err = child.stderr.read()
    code = child.wait()
    elapsed = time.monotonic() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print("  end: %d records in %.1f s, exit %d; peak RSS %.1f MiB (%.2fx the stream)" %
          (records, elapsed, code, peak, peak * 1024 * 1024 / max(1, os.path.getsize(args.stream))))
    for line in summary:
        print("  | " + line)
    skipped = [l for l in err.splitlines() if "skipped" in l]
    if skipped:
        print("  stderr: %d skipped lines, the first: %s" % (len(skipped), skipped[0]))
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
