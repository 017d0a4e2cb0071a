#!/usr/bin/env python3
"""Benchmark P8: how close each drain's estimate, made as its plan started, came to the drain's real time.

  estimate-errors.py record URL AUTH_FILE TOOL ROUND SHUTDOWN < rollout-status.json >> estimates.tsv
      one line per node of the finished plan: its estimate (low, likely, high, basis, past drains), and its drain's
      real time, from its start to its end, read from `POST /api/drains/status` (to the millisecond)
  estimate-errors.py summary estimates.tsv
      per shutdown and tool, and over all: the drains, the median absolute error of the likely value as a share of
      the real time, its quantiles, how many real times fell inside the range, and the same for the estimates made
      with and without past drains (warm and cold)
"""
import json
import statistics
import sys
import urllib.request
from datetime import datetime

COLUMNS = ["shutdown", "tool", "round", "node", "low", "likely", "high", "basis", "drains", "real"]


def seconds(text):
    # RFC 3339 with up to nanoseconds; Python reads microseconds.
    text = text.replace("Z", "+00:00")
    if "." in text:
        head, rest = text.split(".", 1)
        digits = "".join(c for c in rest if c.isdigit())
        zone = rest[len(digits):]
        text = f"{head}.{digits[:6].ljust(6, '0')}{zone}"
    return datetime.fromisoformat(text).timestamp()


def record(url, auth_file, tool, round_, shutdown):
    headers = {"content-type": "application/json"}
    for line in open(auth_file):
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip()] = value.strip()
    status = json.load(sys.stdin)
    for node in status["nodes"]:
        estimate, drain = node.get("estimate"), node.get("drain_id")
        if not estimate or not drain:
            continue
        request = urllib.request.Request(f"{url}/api/drains/status", data=json.dumps({"id": drain}).encode(),
                                         headers=headers, method="POST")
        progress = json.load(urllib.request.urlopen(request, timeout=10))
        real = seconds(progress["finished_at"]) - seconds(progress["started_at"])
        basis = estimate["basis"]
        kind, drains = ("grace", 0) if basis == "GracePeriods" else (
            "own" if basis["PastDrains"]["this_node"] else "others", basis["PastDrains"]["drains"])
        row = [shutdown, tool, round_, node["name"], estimate["low_seconds"], estimate["likely_seconds"],
               estimate["high_seconds"], kind, drains, f"{real:.3f}"]
        print("\t".join(str(v) for v in row))


def describe(rows, label):
    if not rows:
        return
    errors = sorted(abs(r["likely"] - r["real"]) / r["real"] for r in rows if r["real"] > 0)
    inside = sum(1 for r in rows if r["low"] - 0.5 <= r["real"] <= r["high"] + 0.5)
    q = statistics.quantiles(errors, n=4) if len(errors) > 1 else [errors[0]] * 3
    print(f"{label:<28} drains {len(rows):3d}  median |error| {100 * statistics.median(errors):5.1f} %  "
          f"quartiles {100 * q[0]:5.1f} / {100 * q[2]:5.1f} %  max {100 * errors[-1]:5.1f} %  "
          f"real inside the range {inside}/{len(rows)}")


def summary(path):
    rows = []
    for line in open(path):
        values = line.rstrip("\n").split("\t")
        if len(values) != len(COLUMNS):
            continue
        r = dict(zip(COLUMNS, values))
        for k in ("low", "likely", "high", "drains"):
            r[k] = int(r[k])
        r["real"] = float(r["real"])
        rows.append(r)
    for key in sorted({(r["shutdown"], r["tool"]) for r in rows}):
        describe([r for r in rows if (r["shutdown"], r["tool"]) == key], f"{key[0]} {key[1]}")
    describe([r for r in rows if r["basis"] == "grace"], "cold (grace periods)")
    describe([r for r in rows if r["basis"] != "grace"], "warm (past drains)")
    describe(rows, "all")
    print("P8 (median |error| of all drains <= 25 %):",
          "met" if rows and statistics.median(abs(r["likely"] - r["real"]) / r["real"] for r in rows) <= 0.25
          else "missed")


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"]:
        record(*sys.argv[2:7])
    elif sys.argv[1:2] == ["summary"]:
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)
