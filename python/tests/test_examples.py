"""The examples run (at their quick size) and draw their plots."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO


@pytest.mark.parametrize("script,png", [
    ("op_waf.py", "example-op-waf/waf.png"),
    ("hhzs_zones_alpha.py", "example-hhzs/hhzs_over_b3.png"),
])
def test_example_runs_and_plots(tmp_path, script, png):
    env = {**os.environ, "ZONELAB_EXAMPLE_QUICK": "1", "ZONELAB_EXAMPLE_OUT": str(tmp_path),
           "MPLBACKEND": "Agg"}
    p = subprocess.run([sys.executable, str(REPO / "examples" / "python" / script)],
                       cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / png).stat().st_size > 10_000
    assert "run now" in p.stdout
