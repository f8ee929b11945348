"""Single runs: bench, replay, YCSB and paper reproductions, plus the device
profiles. Each run takes the CLI's options as keyword arguments (``io_size`` for
``--io-size``; sizes and durations as numbers or text such as ``"4k"``,
``"100ms"``) and returns the CLI's JSON as ``raw`` and a pandas frame."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, NamedTuple, Optional, Union

from . import _native
from ._progress import Progress, ProgressArg

if TYPE_CHECKING:
    import pandas as pd

PathLike = Union[str, "os.PathLike[str]"]


class RunResult(NamedTuple):
    """A run: ``frame`` has one row (its options and headline metrics, the columns a
    sweep writes); ``raw`` is the CLI's ``--json`` output as a dict."""

    frame: "pd.DataFrame"
    raw: Dict[str, Any]

    def throughput(self) -> "pd.DataFrame":
        """The throughput time series (bench and replay): time_s, mib_s."""
        import pandas as pd

        s = self.raw["throughput_series"]
        step = s["interval_ns"] / 1e9
        return pd.DataFrame(
            {"time_s": [i * step for i in range(len(s["mib_s"]))], "mib_s": s["mib_s"]}
        )


class ReproduceResult(NamedTuple):
    """A paper target: ``claims`` (paper vs measured, one row per claim),
    ``series`` (every figure's points, long form) and ``raw`` (``results.json``)."""

    claims: "pd.DataFrame"
    series: "pd.DataFrame"
    raw: Dict[str, Any]


def _call(request: Dict[str, Any], progress: ProgressArg, desc: str) -> Dict[str, Any]:
    with Progress(progress, desc) as callback:
        text = _native.run(json.dumps(request), callback)
    return json.loads(text)


def _one_row(kind: str, request: Mapping[str, Any], raw: Dict[str, Any]) -> "pd.DataFrame":
    """The run as a sweep row: its options (profile fields named as in sweeps,
    ``device.<field>``; YCSB's keep their ``ssd.``/``hdd.`` prefix) and metrics."""
    import pandas as pd

    row: Dict[str, Any] = {}
    for key, value in request.items():
        if key == "kind":
            continue
        if key == "overrides":
            prefix = "" if kind == "ycsb" else "device."
            for field, v in value.items():
                row[prefix + field] = v
        else:
            row[key] = value
    for name, value in json.loads(_native.headline(kind, json.dumps(raw))):
        row[name] = value
    return pd.DataFrame([row])


def _request(kind: str, fixed: Dict[str, Any], overrides: Optional[Mapping[str, Any]], opts: Dict[str, Any]) -> Dict[str, Any]:
    request: Dict[str, Any] = {"kind": kind, **fixed}
    for key, value in opts.items():
        if key in request:
            raise _native.ZonelabError(f"{kind} options: `{key}` is set by the call itself")
        request[key] = os.fspath(value) if isinstance(value, os.PathLike) else value
    if overrides:
        request["overrides"] = dict(overrides)
    return request


def bench(
    device: str,
    *,
    overrides: Optional[Mapping[str, Any]] = None,
    progress: ProgressArg = None,
    **job: Any,
) -> RunResult:
    """Runs a fio-like job on ``device`` (a built-in profile name or a .toml path).

    ``job`` takes ``zonelab bench``'s options: ``rw``, ``bs``, ``iodepth``,
    ``numjobs``, ``offset``, ``size``, ``io_size``, ``runtime``, ``rwmixread``,
    ``max_open_zones``, ``sample_interval``, ``precondition``, ``no_drain``,
    ``seed``, ``fdp_pid`` (NVMe FDP placement identifiers, ``"0,1,2,3"``).
    ``overrides`` changes profile fields by dotted name, e.g.
    ``{"flash.channels": 16}``, checked as the TOML file's values are.

    >>> frame, raw = bench("zn540", rw="read", bs="1MiB", io_size="64m")
    """
    request = _request("bench", {"device": os.fspath(device)}, overrides, job)
    raw = _call(request, progress, f"bench {device}")
    return RunResult(_one_row("bench", request, raw), raw)


def replay(
    device: str,
    trace: PathLike,
    *,
    overrides: Optional[Mapping[str, Any]] = None,
    progress: ProgressArg = None,
    **opts: Any,
) -> RunResult:
    """Replays a block trace on ``device``.

    ``opts`` takes ``zonelab replay``'s options: ``format`` (auto, msr, disksim,
    csv, alibaba, tencent, blkparse, blkparse-queue), ``speed`` (open loop), ``qd`` (closed loop), ``disk``,
    ``allow_unsorted``, ``precondition`` (``"full"`` or ``"footprint"``),
    ``no_drain``, ``limit``, ``fold``, ``sample_interval``.
    """
    request = _request(
        "replay", {"device": os.fspath(device), "trace": os.fspath(trace)}, overrides, opts
    )
    raw = _call(request, progress, f"replay {os.path.basename(os.fspath(trace))}")
    return RunResult(_one_row("replay", request, raw), raw)


def ycsb(
    scheme: str = "hhzs",
    workload: str = "a",
    *,
    overrides: Optional[Mapping[str, Any]] = None,
    progress: ProgressArg = None,
    **opts: Any,
) -> RunResult:
    """Loads YCSB records into the LSM-tree on a zoned SSD + HM-SMR HDD under
    ``scheme`` (b1-b4, auto, b3+m, p, p+m, hhzs) and runs ``workload`` (load,
    a-f, mix).

    ``opts`` takes ``zonelab ycsb``'s options: ``scale``, ``records``,
    ``operations``, ``alpha``, ``read_ratio``, ``target``, ``ssd``, ``hdd``,
    ``ssd_zones``, ``no_metadata_zones`` (the ablation without the zones the
    file system's and RocksDB's metadata take), ``seed``. ``overrides`` name their device:
    ``{"ssd.flash.channels": 4, "hdd.mechanics.rpm": 5400}``.
    """
    request = _request("ycsb", {"scheme": scheme, "workload": workload}, overrides, opts)
    raw = _call(request, progress, f"ycsb {scheme} {workload}")
    return RunResult(_one_row("ycsb", request, raw), raw)


def reproduce(
    target: str,
    *,
    scale: float = 1.0,
    seed: int = 1,
    traces: Optional[PathLike] = None,
    draws: Optional[int] = None,
    cpu_jitter_ppm: Optional[int] = None,
    progress: ProgressArg = None,
) -> ReproduceResult:
    """Runs a paper target (``zonelab reproduce --list``) at ``scale`` and returns
    its claims and figure series as frames and ``results.json`` as ``raw``.
    ``draws`` sets how many draws a target judges its claims' medians over (mios:
    workload seeds, hhzs: loads per scheme; default 3 each); other targets reject it.
    ``cpu_jitter_ppm`` sets the run-to-run variation of flush and compaction CPU time
    (a CV in ppm, at most 500000) for the targets that model it (hhzs: default 50000,
    0 runs the exact mean costs); other targets reject it."""
    import pandas as pd

    request: Dict[str, Any] = {"kind": "reproduce", "target": target, "scale": scale, "seed": seed}
    if traces is not None:
        request["traces"] = os.fspath(traces)
    if draws is not None:
        request["draws"] = draws
    if cpu_jitter_ppm is not None:
        request["cpu_jitter_ppm"] = cpu_jitter_ppm
    raw = _call(request, progress, f"reproduce {target}")
    claims = pd.DataFrame(
        raw["claims"],
        columns=["id", "description", "paper", "measured", "unit", "tolerance", "holds"],
    )
    rows: List[Dict[str, Any]] = []
    for fig in raw["figures"]:
        cats = fig.get("categories") or []
        for s in fig["series"]:
            for x, y in s["points"]:
                rows.append(
                    {
                        "figure": fig["id"],
                        "title": fig["title"],
                        "kind": fig["kind"],
                        "x_label": fig["x_label"],
                        "y_label": fig["y_label"],
                        "series": s["name"],
                        "x": x,
                        "category": cats[int(x)] if cats and 0 <= int(x) < len(cats) else None,
                        "y": y,
                    }
                )
    series = pd.DataFrame(
        rows,
        columns=["figure", "title", "kind", "x_label", "y_label", "series", "x", "category", "y"],
    )
    return ReproduceResult(claims, series, raw)


def devices() -> "pd.DataFrame":
    """The built-in device profiles: name, model, description."""
    import pandas as pd

    return pd.DataFrame(json.loads(_native.devices()), columns=["name", "model", "description"])


def profile(name: str, overrides: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """A profile's fields as a dict (after ``overrides``), checked by building the
    device: an invalid value raises :class:`ZonelabError` with the CLI's message."""
    return json.loads(_native.profile(os.fspath(name), json.dumps(dict(overrides or {}))))
