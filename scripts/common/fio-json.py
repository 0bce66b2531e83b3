#!/usr/bin/python3
"""The one reader of fio's JSON output (fio --output-format=json), for the
guest scripts and the host alike.

Usage: fio-json.py [--per-job] [--job NAME] JSON FIELD...

Prints FIELDs, tab-separated: of all jobs together (reads and writes
summed, the longest runtime), or one line per job with --per-job, or of
job NAME only with --job. Fields:
  ios, rios, wios  I/Os: read and written, read, written (total_ios)
  ms               the longest of the read, write and job runtimes
  iops             ios * 1000 / ms (0 when ms is 0)
  job              the job name
  rclat_max_us     the longest read completion latency, in microseconds
Text before the JSON (a killed fio writes "fio: terminating on signal"
first) is skipped. Exits 1, with the reason on standard output, when
JSON holds no fio result, a job has fio's error set, or a job is missing.
"""
import json
import sys

FIELDS = ("ios", "rios", "wios", "ms", "iops", "job", "rclat_max_us")


def value(field, jobs):
    rios = sum(j["read"]["total_ios"] for j in jobs)
    wios = sum(j["write"]["total_ios"] for j in jobs)
    ms = max(max(j["read"]["runtime"], j["write"]["runtime"],
                 j["job_runtime"]) for j in jobs)
    if field == "ios":
        return rios + wios
    if field == "rios":
        return rios
    if field == "wios":
        return wios
    if field == "ms":
        return ms
    if field == "iops":
        return int((rios + wios) * 1000 / ms) if ms else 0
    if field == "job":
        return ",".join(j["jobname"] for j in jobs)
    return int(max(j["read"]["clat_ns"]["max"] for j in jobs) / 1000)


def main(argv):
    per_job, name = False, None
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt == "--per-job":
            per_job = True
        elif opt == "--job" and argv:
            name = argv.pop(0)
        else:
            argv = []
    if len(argv) < 2 or any(f not in FIELDS for f in argv[1:]):
        print("usage: fio-json.py [--per-job] [--job NAME] JSON FIELD... "
              "(fields: " + " ".join(FIELDS) + ")")
        return 2
    path, fields = argv[0], argv[1:]
    try:
        text = open(path).read()
        jobs = json.loads(text[text.index("{"):])["jobs"]
    except (OSError, ValueError, KeyError) as err:
        print(f"no fio result in {path} ({err})")
        return 1
    if not jobs:
        print(f"no fio job in {path}")
        return 1
    for j in jobs:
        if j.get("error"):
            print(f"fio error {j['error']} in job {j['jobname']} ({path})")
            return 1
    if name is not None:
        jobs = [j for j in jobs if j["jobname"] == name]
        if not jobs:
            print(f"no job {name} in {path}")
            return 1
    try:
        lines = ["\t".join(str(value(f, group)) for f in fields)
                 for group in ([[j] for j in jobs] if per_job else [jobs])]
    except (KeyError, TypeError) as err:
        print(f"fio result in {path} lacks {err}")
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
