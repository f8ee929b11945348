"""Sweeps: rows equal single runs, the CLI and Python write the same files, the
cache makes reruns free and an interrupted sweep resume without repeating a run."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

import zonelab
from conftest import SMALL_SSD, op_sweep, write_toml


def _log(out: pathlib.Path) -> list:
    path = out / "runs.log"
    return [json.loads(l) for l in path.read_text().splitlines()] if path.exists() else []


def _cached(out: pathlib.Path) -> set:
    return {p.stem for p in (out / "cache").glob("*/*.json")}


def test_rows_are_the_single_runs_and_the_files_agree(tmp_path):
    spec = op_sweep([7, 28], ["randwrite", "write"], [1])
    r = zonelab.sweep(spec, out=tmp_path / "s", progress=False)
    f = r.frame
    assert len(f) == 4 and f["error"].isna().all()
    assert list(f.columns[:5]) == ["run", "hash", "seed", "device.capacity.over_provisioning_percent", "rw"]
    for _, row in f.iterrows():
        one, raw = zonelab.bench(
            "ssd-conventional", rw=row["rw"], bs="4k", io_size="1g", iodepth=32, precondition=True,
            overrides={"capacity.capacity_mib": 1024, "flash.pages_per_block": 6,
                       "capacity.over_provisioning_percent": int(row["device.capacity.over_provisioning_percent"])},
            progress=False,
        )
        for metric in ["waf", "throughput_mib_s", "latency_p99_ns", "gc_copied_bytes"]:
            assert row[metric] == one[metric][0], metric
    randw = f[f["rw"] == "randwrite"].set_index("device.capacity.over_provisioning_percent")["waf"]
    assert randw[7] > randw[28] > 1.0, "more spare space, less write amplification"
    import pandas as pd

    def values(df: "pd.DataFrame") -> dict:  # dtypes aside (pandas versions differ)
        return df.astype(object).where(df.notna(), None).to_dict("list")

    table = pq.read_table(r.raw["parquet"]).to_pandas()
    assert list(table.columns) == list(f.columns)
    assert values(table) == values(f)

    csv = pd.read_csv(r.raw["csv"])
    assert list(csv.columns) == list(f.columns)
    assert (csv["waf"] == f["waf"]).all()
    html = pathlib.Path(r.raw["report"]).read_text()
    assert "waf vs device.capacity.over_provisioning_percent" in html and "waf vs rw" in html


def test_the_cli_and_python_write_the_same_parquet(cli, tmp_path):
    spec = op_sweep([7, 14], ["randwrite"], [1, 2])
    toml = write_toml(tmp_path / "op.toml", spec)
    cli("sweep", str(toml), "--out", str(tmp_path / "cli"))
    r = zonelab.sweep(toml, out=tmp_path / "py", progress=False)
    assert (tmp_path / "cli" / "runs.parquet").read_bytes() == pathlib.Path(r.raw["parquet"]).read_bytes()
    assert (tmp_path / "cli" / "runs.csv").read_bytes() == pathlib.Path(r.raw["csv"]).read_bytes()


def test_a_rerun_runs_nothing_and_writes_the_same_bytes(tmp_path):
    spec = op_sweep([7, 14], ["randwrite", "write"], [1])
    first = zonelab.sweep(spec, out=tmp_path, progress=False)
    before = pathlib.Path(first.raw["parquet"]).read_bytes()
    assert len(first.raw["stats"]["executed"]) == 4
    again = zonelab.sweep(spec, out=tmp_path, progress=False)
    assert again.raw["stats"]["executed"] == [] and again.raw["stats"]["cached"] == 4
    assert pathlib.Path(again.raw["parquet"]).read_bytes() == before
    # A new point runs alone; the others come from the cache.
    wider = zonelab.sweep(op_sweep([7, 14, 21], ["randwrite", "write"], [1]), out=tmp_path, progress=False)
    assert len(wider.raw["stats"]["executed"]) == 2 and wider.raw["stats"]["cached"] == 4


def test_a_killed_sweep_resumes_without_repeating_a_run(tmp_path):
    # 24 runs of ~0.15-0.3 s on 2 workers: kill the driver and its workers once a
    # few runs are cached, then rerun.
    spec = op_sweep([7, 10, 14, 20, 28, 40], ["randwrite", "randrw"], [1, 2], io_size="2g")
    toml = write_toml(tmp_path / "op.toml", spec)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "zonelab", "sweep", str(toml), "--out", str(out), "--workers", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while len(_cached(out)) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = _cached(out)
    assert 3 <= len(done_before) < 24, f"{len(done_before)} of 24 runs done when killed: not mid-sweep"
    r = zonelab.sweep(toml, out=out, progress=False)
    st = r.raw["stats"]
    executed = set(st["executed"])
    assert st["cached"] == len(done_before)
    assert executed.isdisjoint(done_before), "a run finished before the kill ran again"
    assert executed | done_before == _cached(out) and len(_cached(out)) == 24
    # The log: every run executed at most once over both invocations.
    runs = [e["hash"] for e in _log(out) if e["outcome"] != "crash"]
    assert len(runs) == len(set(runs)), "a run was executed twice"
    assert r.frame["error"].isna().all() and len(r.frame) == 24
    # And the result is the one an uninterrupted sweep gives.
    fresh = zonelab.sweep(toml, out=tmp_path / "fresh", progress=False)
    assert pathlib.Path(r.raw["parquet"]).read_bytes() == pathlib.Path(fresh.raw["parquet"]).read_bytes()


def test_latin_hypercube_and_random_designs(tmp_path):
    spec = {
        "sweep": {"kind": "bench", "design": "lhs", "samples": 6, "design_seed": 4},
        "base": {**SMALL_SSD, "rw": "randwrite", "io_size": "256m", "iodepth": 8},
        "params": {"device.capacity.over_provisioning_percent": {"min": 7, "max": 40},
                   "bs": ["4k", "8k", "16k"]},
    }
    r = zonelab.sweep(spec, out=tmp_path / "lhs", progress=False)
    op = sorted(r.frame["device.capacity.over_provisioning_percent"])
    assert len(op) == 6 and all(7 <= x <= 40 for x in op)
    strata = sorted(int((x - 7) / (33 / 6)) for x in op)
    assert strata == list(range(6)), "one sample per stratum"
    assert sorted(r.frame["bs"]) == ["16k", "16k", "4k", "4k", "8k", "8k"]
    spec["sweep"] = {"kind": "bench", "design": "random", "samples": 5, "design_seed": 4}
    plan = zonelab.plan(spec, out=tmp_path / "rnd")
    assert len(plan) == 5 and not plan["cached"].any()


def test_a_failing_configuration_is_a_row_with_its_error_and_is_not_rerun(tmp_path):
    spec = op_sweep([1, 14], ["randwrite"], [1], io_size="64m")
    r = zonelab.sweep(spec, out=tmp_path, progress=False)
    bad = r.frame[r.frame["device.capacity.over_provisioning_percent"] == 1].iloc[0]
    assert "capacity.over_provisioning_percent` = 1 is out of range" in bad["error"]
    assert bad[["waf", "iops"]].isna().all()
    assert r.frame["error"].isna().sum() == 1
    again = zonelab.sweep(spec, out=tmp_path, progress=False)
    assert again.raw["stats"]["executed"] == []


@pytest.mark.parametrize("spec,needle", [
    ({"sweep": {"kind": "bench", "design": "sobol"}}, "sweep.design `sobol` is unknown"),
    ({"sweep": {"kind": "bench"}, "base": {"device": "zn540"}, "params": {"bs": ["4k", "4x"]}},
     "run 1 (bs=\"4x\", seed 1): bs: `4x` has an unknown size suffix"),
    ({"sweep": {"kind": "bench", "metrics": ["wafer"]}, "base": {"device": "zn540"}},
     "sweep.metrics: `wafer` is not a metric of bench runs"),
])
def test_bad_specs_are_named_before_anything_runs(tmp_path, spec, needle):
    with pytest.raises(zonelab.ZonelabError) as e:
        zonelab.sweep(spec, out=tmp_path, progress=False)
    assert needle in str(e.value)
    assert not (tmp_path / "runs.log").exists()


def test_ycsb_and_reproduce_sweep_over_schemes_scales_and_seeds(tmp_path):
    y = zonelab.sweep({
        "sweep": {"kind": "ycsb", "seeds": [1, 2], "metrics": ["run_ops_per_s", "load_ops_per_s"]},
        "base": {"workload": "a", "scale": 0.0005},
        "params": {"scheme": ["b3", "hhzs"], "ssd.flash.channels": [4, 8]},
    }, out=tmp_path / "y", progress=False)
    assert len(y.frame) == 8 and y.frame["error"].isna().all()
    assert list(y.frame.columns[-2:]) == ["run_ops_per_s", "load_ops_per_s"]
    one, _ = zonelab.ycsb("hhzs", "a", scale=0.0005, seed=2, overrides={"ssd.flash.channels": 4}, progress=False)
    row = y.frame[(y.frame["scheme"] == "hhzs") & (y.frame["seed"] == 2) & (y.frame["ssd.flash.channels"] == 4)]
    assert row["run_ops_per_s"].iloc[0] == one["run_ops_per_s"][0]
    rp = zonelab.sweep({
        "sweep": {"kind": "reproduce", "seeds": [1]},
        "base": {"target": "devices"},
        "params": {"scale": [0.01, 0.02]},
    }, out=tmp_path / "r", progress=False)
    assert list(rp.frame["claims"]) == [6.0, 6.0]
    assert "claim.zn540.seq_read_mib_s" in rp.frame.columns
