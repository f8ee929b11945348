"""Shared fixtures: the CLI binary of the same tree (the API is checked against
its JSON) and a small, fast sweep."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
from typing import Any, Callable, Dict, List

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli_path() -> str:
    path = os.environ.get("ZONELAB_CLI", str(REPO / "target" / "debug" / "zonelab"))
    if not os.path.exists(path):
        pytest.fail(f"the zonelab CLI is not built at {path} (scripts/python-test.sh builds it)")
    return path


@pytest.fixture(scope="session")
def cli(cli_path: str) -> Callable[..., subprocess.CompletedProcess]:
    def run(*args: str, ok: bool = True, **kw: Any) -> subprocess.CompletedProcess:
        p = subprocess.run([cli_path, *args], capture_output=True, text=True, **kw)
        if ok:
            assert p.returncode == 0, p.stderr
        return p

    return run


@pytest.fixture(scope="session")
def cli_json(cli: Callable[..., subprocess.CompletedProcess]) -> Callable[..., Any]:
    def run(*args: str) -> Any:
        return json.loads(cli(*args).stdout)

    return run


def cli_error(p: subprocess.CompletedProcess) -> str:
    """The CLI's one-line error without its `zonelab: error: ` prefix."""
    assert p.returncode != 0
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    prefix = "zonelab: error: "
    assert lines[0].startswith(prefix), lines[0]
    return lines[0][len(prefix):]


# A conventional SSD small enough that a random-write run that overwrites it
# twice takes a fraction of a second: 1 GiB logical, 6-page blocks (6 MiB
# superblocks) so even 7% over-provisioning leaves the spare superblocks GC needs.
SMALL_SSD: Dict[str, Any] = {
    "device": "ssd-conventional",
    "device.capacity.capacity_mib": 1024,
    "device.flash.pages_per_block": 6,
}


def op_sweep(ops: List[float], rws: List[str], seeds: List[int], io_size: str = "1g") -> Dict[str, Any]:
    """Over-provisioning x rw on the small SSD (preconditioned, 4 KiB, QD32)."""
    return {
        "sweep": {"kind": "bench", "seeds": seeds, "name": "op"},
        "base": {**SMALL_SSD, "bs": "4k", "io_size": io_size, "iodepth": 32, "precondition": True},
        "params": {"device.capacity.over_provisioning_percent": ops, "rw": rws},
    }


def write_toml(path: pathlib.Path, spec: Dict[str, Any]) -> pathlib.Path:
    """A sweep dict as a TOML file (flat tables of scalars and lists)."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        raise TypeError(v)

    lines = []
    for table, entries in spec.items():
        lines.append(f"[{table}]")
        for k, v in entries.items():
            lines.append(f"{json.dumps(k)} = {value(v)}")
    path.write_text("\n".join(lines) + "\n")
    return path
