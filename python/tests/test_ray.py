"""The Ray executor on a local Ray: the same cache and a byte-identical Parquet
to the local executor's, from Python and from `zonelab sweep --executor ray`."""

from __future__ import annotations

import json
import os
import pathlib
import sys

import pandas as pd
import pytest
import ray

import zonelab
from conftest import op_sweep, write_toml


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def test_ray_gives_the_local_executors_parquet_byte_for_byte(local_ray, tmp_path):
    spec = op_sweep([7, 14, 28], ["randwrite", "write"], [1, 2])
    local = zonelab.sweep(spec, out=tmp_path / "local", executor="local", progress=False)
    on_ray = zonelab.sweep(spec, out=tmp_path / "ray", executor="ray", progress=False)
    assert len(on_ray.raw["stats"]["executed"]) == 12, "every run ran as a Ray task"
    log = [json.loads(l) for l in (tmp_path / "ray" / "runs.log").read_text().splitlines()]
    assert {e["executor"] for e in log} == {"ray"} and len(log) == 12
    assert pathlib.Path(on_ray.raw["parquet"]).read_bytes() == pathlib.Path(local.raw["parquet"]).read_bytes()
    pd.testing.assert_frame_equal(on_ray.frame, local.frame)
    # Resumes from the cache like the local executor.
    again = zonelab.sweep(spec, out=tmp_path / "ray", executor="ray", progress=False)
    assert again.raw["stats"]["executed"] == []


def test_the_cli_runs_a_sweep_on_ray_at_an_address(local_ray, cli, tmp_path):
    spec = op_sweep([7, 14], ["randwrite"], [1, 2])
    toml = write_toml(tmp_path / "op.toml", spec)
    env = {**os.environ, "ZONELAB_PYTHON": sys.executable}
    cli("sweep", str(toml), "--out", str(tmp_path / "ray"), "--executor", "ray",
        "--address", local_ray, env=env)
    cli("sweep", str(toml), "--out", str(tmp_path / "local"))
    assert (tmp_path / "ray" / "runs.parquet").read_bytes() == (tmp_path / "local" / "runs.parquet").read_bytes()
    log = [json.loads(l) for l in (tmp_path / "ray" / "runs.log").read_text().splitlines()]
    assert {e["executor"] for e in log} == {"ray"} and len(log) == 4


def test_the_cli_says_what_is_missing_when_python_is(cli, tmp_path):
    toml = write_toml(tmp_path / "op.toml", op_sweep([7], ["randwrite"], [1]))
    p = cli("sweep", str(toml), "--out", str(tmp_path / "x"), "--executor", "ray",
            env={**os.environ, "ZONELAB_PYTHON": "/nonexistent/python3"}, ok=False)
    assert p.returncode == 1
    assert "--executor ray runs through the Python package" in p.stderr
