"""Sweeps: many runs from one spec (a sweep file's path or the same structure as
a dict), a grid, random or Latin-hypercube design over profile fields, options,
schemes, scales and seeds. Results are cached per run under a hash of (config,
seed, version), so an interrupted sweep resumes and nothing finished runs twice;
the table is written as Parquet and CSV with an HTML report.

Executors: ``"local"`` (worker processes, one per core) and ``"ray"`` (each run
a Ray task, on ``ray.init(address=...)`` or a local Ray). Both fill the same cache
and the same files: the Parquet is byte-identical whichever ran it.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, NamedTuple, Optional, Union

from . import _native
from ._native import ZonelabError
from ._progress import ProgressArg, interactive

if TYPE_CHECKING:
    import pandas as pd

Spec = Union[str, "os.PathLike[str]", Mapping[str, Any]]


class SweepResult(NamedTuple):
    """A finished sweep: ``frame`` has one row per run (config and headline
    metrics, as in ``runs.parquet``); ``raw`` has the stats (``executed``: hashes
    run now, ``cached``: found done) and the output paths."""

    frame: "pd.DataFrame"
    raw: Dict[str, Any]


def _open(spec: Spec, out: Optional[Union[str, "os.PathLike[str]"]]) -> "_native.Sweep":
    out_s = None if out is None else os.fspath(out)
    if isinstance(spec, Mapping):
        return _native.Sweep(json.dumps(spec), out_s, "unnamed")
    return _native.Sweep.from_file(os.fspath(spec), out_s)


def _bar(progress: ProgressArg, total: int, name: str) -> Any:
    if callable(progress):
        return progress
    show = interactive() if progress is None else bool(progress)
    if not show:
        return None
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=f"sweep {name}", unit=" runs", leave=False)

    def update(done: int, total_: int, *_: Any) -> None:
        bar.total = total_
        bar.n = done
        bar.refresh()

    update.close = bar.close  # type: ignore[attr-defined]
    return update


def plan(spec: Spec, *, out: Optional[Union[str, "os.PathLike[str]"]] = None) -> "pd.DataFrame":
    """The sweep's runs without running them: run, hash, seed, the swept values,
    and whether each is cached in ``out``."""
    import pandas as pd

    sw = _open(spec, out)
    pending = {json.loads(item)["hash"] for item in sw.pending()}
    rows = []
    for r in json.loads(sw.plan()):
        rows.append(
            {"run": r["run"], "hash": r["hash"][:16], "seed": r["seed"], **r["point"],
             "cached": r["hash"] not in pending}
        )
    return pd.DataFrame(rows)


def _ray_run(item: str) -> str:
    """One run in a Ray worker (module-level so Ray can pickle it by reference)."""
    from zonelab import _native as native

    return native.run_work_item(item)


def _run_on_ray(sw: "_native.Sweep", address: Optional[str], progress: Any) -> Dict[str, Any]:
    try:
        import ray
    except ImportError as e:
        raise ZonelabError(
            "executor='ray' needs Ray: pip install 'zonelab[ray]' (docs/python.md)"
        ) from e
    started = False
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(_ray_run)
        items = sw.pending()
        stats: Dict[str, Any] = {
            "runs": sw.runs, "unique": sw.unique, "cached": sw.unique - len(items),
            "executed": [], "failed": 0, "crashed": [],
        }
        done_count = stats["cached"]
        if progress:
            progress(done_count, sw.unique)
        refs = {remote.remote(item): json.loads(item)["hash"] for item in items}
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1)
            for ref in ready:
                h = refs.pop(ref)
                try:
                    answer = ray.get(ref)
                except Exception as e:  # a task that died: not cached, rerun retries
                    answer = json.dumps({"hash": h, "crash": f"the Ray task failed: {e}"})
                if sw.store(answer, "ray"):
                    stats["executed"].append(h)
                    if json.loads(answer).get("error") is not None:
                        stats["failed"] += 1
                else:
                    stats["crashed"].append(f"{h}: {json.loads(answer).get('crash')}")
                done_count += 1
                if progress:
                    progress(done_count, sw.unique)
        return stats
    finally:
        if started:
            ray.shutdown()


def sweep(
    spec: Spec,
    *,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    executor: str = "local",
    workers: Optional[int] = None,
    address: Optional[str] = None,
    progress: ProgressArg = None,
) -> SweepResult:
    """Runs a sweep and returns its table.

    ``spec`` is a sweep file (TOML) or a dict of the same structure::

        {"sweep": {"kind": "bench", "design": "grid", "seeds": [1]},
         "base": {"device": "ssd-conventional", "rw": "randwrite", "io_size": "1g"},
         "params": {"device.capacity.over_provisioning_percent": [7, 14, 28]}}

    ``out`` (default ``results/sweep-<name>``) holds the cache, ``runs.parquet``,
    ``runs.csv`` and ``report.html``. ``executor`` is ``"local"`` (``workers``
    processes, default one per core) or ``"ray"`` (``address`` of a cluster, or
    a local Ray; an already initialised Ray is used as it is).
    """
    import pandas as pd

    sw = _open(spec, out)
    bar = _bar(progress, sw.unique, sw.name)
    try:
        if executor == "local":
            n = workers if workers is not None else (os.cpu_count() or 1)
            if n < 1:
                raise ZonelabError("workers must be at least 1")
            command = [sys.executable, "-m", "zonelab._worker"]
            stats = json.loads(sw.run_local(command, n, bar))
        elif executor == "ray":
            stats = _run_on_ray(sw, address, bar)
        else:
            raise ZonelabError(f"executor `{executor}` is unknown (local or ray)")
    finally:
        if bar is not None and hasattr(bar, "close"):
            bar.close()
    finished = json.loads(sw.finish())
    frame = pd.DataFrame(finished["records"], columns=finished["columns"])
    raw = {
        "name": sw.name,
        "out": sw.out,
        "executor": executor,
        "stats": stats,
        "parquet": finished["parquet"],
        "csv": finished["csv"],
        "report": finished["report"],
    }
    if stats["crashed"]:
        raise ZonelabError(
            f"{len(stats['crashed'])} runs crashed and were not cached (run the sweep "
            f"again to retry them); first: {stats['crashed'][0]}"
        )
    return SweepResult(frame, raw)
