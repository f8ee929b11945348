"""Sweep throughput in runs per second: the CLI's and the Python package's local
executors and Ray (a local Ray on this machine), on fresh output directories
(nothing cached), for two kinds of runs:

- ``tiny``: 256 random 4 KiB reads on zn540 per run, one run per seed, about a
  millisecond each: what the executors themselves cost per run;
- ``op-waf``: the op_waf example's runs (4 GiB SSD preconditioned, then 8 GiB of
  writes), about a quarter of a second each: a sweep that does work.

    python python/benchmarks/sweep_throughput.py --cli target/release/zonelab

Prints one line per (workload, executor); docs/PERFORMANCE.md records them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import zonelab


def tiny(n: int) -> dict:
    return {
        "sweep": {"kind": "bench", "name": "tiny", "seeds": list(range(1, n + 1))},
        "base": {"device": "zn540", "rw": "randread", "bs": "4k", "io_size": "1m"},
    }


def op_waf() -> dict:
    return {
        "sweep": {"kind": "bench", "name": "op-waf", "seeds": [1, 2]},
        "base": {"device": "ssd-conventional", "device.capacity.capacity_mib": 4096,
                 "device.flash.pages_per_block": 6, "precondition": True, "iodepth": 32,
                 "io_size": "8192m"},
        "params": {"device.capacity.over_provisioning_percent": [7, 10, 14, 20, 28, 40],
                   "rw": ["randwrite", "write"], "bs": ["4k", "64k", "1m"]},
    }


def toml_of(spec: dict, path: str) -> None:
    def v(x):
        if isinstance(x, bool):
            return "true" if x else "false"
        if isinstance(x, (int, float)):
            return repr(x)
        if isinstance(x, str):
            return json.dumps(x)
        if isinstance(x, list):
            return "[" + ", ".join(v(i) for i in x) + "]"
        return "{ " + ", ".join(f"{k} = {v(i)}" for k, i in x.items()) + " }"

    with open(path, "w") as f:
        for table, entries in spec.items():
            f.write(f"[{table}]\n")
            for k, x in entries.items():
                f.write(f"{json.dumps(k)} = {v(x)}\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True, help="the zonelab binary")
    ap.add_argument("--tiny-runs", type=int, default=400)
    a = ap.parse_args()
    import ray

    t0 = time.monotonic()
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    ray_start = time.monotonic() - t0
    print(f"ray.init (local Ray, {os.cpu_count()} CPUs): {ray_start:.1f} s (not counted below)")
    for name, spec in [("tiny", tiny(a.tiny_runs)), ("op-waf", op_waf())]:
        with tempfile.TemporaryDirectory() as d:
            toml = os.path.join(d, "s.toml")
            toml_of(spec, toml)
            t = time.monotonic()
            subprocess.run([a.cli, "sweep", toml, "--out", os.path.join(d, "cli")], check=True,
                           stdout=subprocess.DEVNULL)
            cli_s = time.monotonic() - t
            times = {"cli local": cli_s}
            for executor in ["local", "ray"]:
                t = time.monotonic()
                r = zonelab.sweep(spec, out=os.path.join(d, executor), executor=executor, progress=False)
                times[f"python {executor}"] = time.monotonic() - t
                n = len(r.raw["stats"]["executed"])
            same = len({open(os.path.join(d, x, "runs.parquet"), "rb").read() for x in ["cli", "local", "ray"]}) == 1
            for k, s in times.items():
                print(f"{name:7s} {n:4d} runs  {k:13s} {s:7.2f} s  {n / s:7.1f} runs/s")
            print(f"{name:7s} runs.parquet identical across the three: {same}")
    ray.shutdown()


if __name__ == "__main__":
    sys.exit(main())
