# %% [markdown]
# # Over-provisioning and write amplification on a conventional SSD
#
# A notebook-style script (cells in Jupytext's percent format: open it in Jupyter
# or VS Code, or run it with `python examples/python/op_waf.py`). It sweeps the
# spare space of `ssd-conventional` (its page-mapped FTL with greedy GC) against
# the workload, and plots the write amplification factor (WAF): media bytes
# written per host byte.
#
# The device is the built-in profile shrunk to 4 GiB logical with 6-page flash
# blocks (6 MiB superblocks), so each run overwrites the whole device twice in
# about a second and even 7% over-provisioning leaves GC the spare superblocks
# it needs. `ZONELAB_EXAMPLE_QUICK=1` runs a smaller version (the test suite
# does). The sweep is cached in `results/example-op-waf`: run it again and
# nothing is recomputed.

# %%
import os

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt

import zonelab

QUICK = os.environ.get("ZONELAB_EXAMPLE_QUICK") == "1"
OUT = os.environ.get("ZONELAB_EXAMPLE_OUT", "results")
capacity_mib = 512 if QUICK else 4096

spec = {
    "sweep": {"kind": "bench", "name": "op-waf", "seeds": [1] if QUICK else [1, 2]},
    "base": {
        "device": "ssd-conventional",
        "device.capacity.capacity_mib": capacity_mib,
        "device.flash.pages_per_block": 6,
        "precondition": True,  # fill the device first, as fio users do
        "iodepth": 32,
        "io_size": f"{2 * capacity_mib}m",  # then overwrite it twice
    },
    "params": {
        "device.capacity.over_provisioning_percent": [7, 28] if QUICK else [7, 10, 14, 20, 28, 40],
        "rw": ["randwrite", "write"],
        "bs": ["4k"] if QUICK else ["4k", "64k", "1m"],
    },
}

# %% Run the sweep (worker processes on every core; executor="ray" for a cluster)
result = zonelab.sweep(spec, out=os.path.join(OUT, "example-op-waf"))
df = result.frame
print(result.raw["stats"]["unique"], "runs;", len(result.raw["stats"]["executed"]), "run now")
print("table:", result.raw["parquet"], "report:", result.raw["report"])

# %% WAF against over-provisioning, one line per workload (mean over seeds)
op = "device.capacity.over_provisioning_percent"
df["workload"] = df["rw"] + " " + df["bs"]
waf = df.groupby(["workload", op])["waf"].mean().unstack("workload")
print(waf.round(3).to_string())

fig, ax = plt.subplots(figsize=(7, 4.5))
for workload in waf.columns:
    ax.plot(waf.index, waf[workload], marker="o", label=workload)
ax.set_xlabel("over-provisioning (% of logical capacity)")
ax.set_ylabel("write amplification (media / host bytes)")
ax.set_title(f"ssd-conventional, {capacity_mib} MiB logical, greedy GC")
ax.grid(alpha=0.3)
ax.legend()
png = os.path.join(OUT, "example-op-waf", "waf.png")
fig.savefig(png, dpi=120, bbox_inches="tight")
print("plot:", png)

# %% [markdown]
# Uniform random writes amplify most at little spare space and fall towards 1
# as it grows: greedy GC finds emptier victims. Larger random writes amplify
# less: a 1 MiB write invalidates a sixth of a 6 MiB superblock at once, so
# invalid space gathers in fewer superblocks (64 KiB, 16 units, barely differs
# from 4 KiB).
# Sequential writes invalidate whole superblocks before GC needs them and stay
# at 1 whatever the spare space.
