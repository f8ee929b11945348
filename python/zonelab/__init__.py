"""ZoneLab from Python: zoned and hybrid storage devices in virtual time.

Every call runs the Rust library in this process (the same code paths as the
``zonelab`` CLI, so the same configuration gives the same numbers) and returns a
pandas DataFrame together with the raw result dict (what the CLI prints with
``--json``)::

    import zonelab
    frame, raw = zonelab.bench("zn540", rw="randread", bs="4k", io_size="64m")
    frame, raw = zonelab.bench("ssd-conventional", rw="randwrite", io_size="1g",
                               overrides={"capacity.over_provisioning_percent": 28})
    result = zonelab.sweep("op.toml")            # or a dict; executor="ray"

See docs/python.md for the API, sweep files and executors.
"""

from ._native import ZonelabError
from ._native import version as _version
from .runs import (
    ReproduceResult,
    RunResult,
    bench,
    devices,
    profile,
    replay,
    reproduce,
    ycsb,
)
from .sweep import SweepResult, plan, sweep

__version__: str = _version()

__all__ = [
    "ZonelabError",
    "RunResult",
    "ReproduceResult",
    "SweepResult",
    "bench",
    "replay",
    "ycsb",
    "reproduce",
    "devices",
    "profile",
    "sweep",
    "plan",
    "__version__",
]
