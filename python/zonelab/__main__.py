"""``python -m zonelab sweep SWEEP.toml [--executor local|ray]``: the CLI's
``zonelab sweep`` from Python (``zonelab sweep --executor ray`` runs this)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import List, Optional

from ._native import ZonelabError
from .sweep import plan, sweep


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m zonelab")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sweep", help="run a sweep file")
    s.add_argument("spec", help="the sweep file (TOML)")
    s.add_argument("--out", default=None, help="output directory (default results/sweep-<name>)")
    s.add_argument("--executor", default="local", choices=["local", "ray"])
    s.add_argument("--workers", type=int, default=None, help="local worker processes")
    s.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    s.add_argument("--dry-run", action="store_true", help="list the runs; run nothing")
    a = p.parse_args(argv)
    try:
        if a.dry_run:
            frame = plan(a.spec, out=a.out)
            print(frame.to_string(index=False))
            print(f"\n{len(frame)} runs, {int((~frame['cached']).sum())} to run")
            return 0
        t0 = time.monotonic()
        result = sweep(a.spec, out=a.out, executor=a.executor, workers=a.workers, address=a.address)
    except ZonelabError as e:
        print(f"zonelab: error: {e}", file=sys.stderr)
        return 1
    st = result.raw["stats"]
    print(
        f"sweep {result.raw['name']}: {st['runs']} runs ({st['unique']} distinct): "
        f"{st['cached']} cached, {len(st['executed'])} run now ({st['failed']} failed), "
        f"{len(st['crashed'])} crashed, in {time.monotonic() - t0:.1f} s on {a.executor}"
    )
    print(f"{result.raw['parquet']}, {result.raw['csv']}, {result.raw['report']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
