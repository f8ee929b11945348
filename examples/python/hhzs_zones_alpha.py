# %% [markdown]
# # HHZS against B3: SSD zones × skew
#
# A notebook-style script (Jupytext percent cells). HHZS (`papers/hhzs.txt`)
# places, migrates and caches LSM-tree data between a zoned SSD with a limited
# zone budget and an HM-SMR HDD; B3 is the paper's best static baseline. This
# sweeps the SSD's zone budget and the Zipf constant α of YCSB workload A,
# runs both schemes on each point and several seeds, and plots the throughput
# ratio HHZS/B3 — the paper's Exp#1 question, asked over a grid.
#
# At `scale = 0.01` (1% of the paper's 200 GiB, the CLI's default) the whole
# sweep takes about a minute on two cores; `ZONELAB_EXAMPLE_QUICK=1` runs a
# smaller one. Results are cached in `results/example-hhzs`.

# %%
import os

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt

import zonelab

QUICK = os.environ.get("ZONELAB_EXAMPLE_QUICK") == "1"
OUT = os.environ.get("ZONELAB_EXAMPLE_OUT", "results")

spec = {
    "sweep": {
        "kind": "ycsb",
        "name": "hhzs-zones-alpha",
        "seeds": [1] if QUICK else [1, 2, 3],
        "metrics": ["run_ops_per_s", "load_ops_per_s", "run_get_p99_ns", "run_migrations"],
    },
    "base": {"workload": "a", "scale": 0.001 if QUICK else 0.01},
    "params": {
        "scheme": ["b3", "hhzs"],
        "ssd_zones": [10, 40] if QUICK else [10, 20, 30, 40, 60],
        "alpha": [0.9, 1.2] if QUICK else [0.7, 0.9, 1.1, 1.2],
    },
}

# %% Run it
result = zonelab.sweep(spec, out=os.path.join(OUT, "example-hhzs"))
df = result.frame
assert df["error"].isna().all(), df[df["error"].notna()]
print(result.raw["stats"]["unique"], "runs;", len(result.raw["stats"]["executed"]), "run now")

# %% HHZS/B3 throughput ratio per (zones, α), per seed, then its mean and spread
tput = df.pivot_table(index=["ssd_zones", "alpha", "seed"], columns="scheme", values="run_ops_per_s")
tput["ratio"] = tput["hhzs"] / tput["b3"]
ratio = tput.groupby(["ssd_zones", "alpha"])["ratio"].agg(["mean", "min", "max"])
print(ratio.round(3).to_string())

fig, ax = plt.subplots(figsize=(7, 4.5))
for alpha, part in ratio.groupby(level="alpha"):
    zones = part.index.get_level_values("ssd_zones")
    ax.errorbar(zones, part["mean"], yerr=[part["mean"] - part["min"], part["max"] - part["mean"]],
                marker="o", capsize=3, label=f"α = {alpha}")
ax.axhline(1.0, color="grey", lw=1, ls="--")
ax.set_xlabel("SSD zones available to the store")
ax.set_ylabel("throughput HHZS / B3 (YCSB A)")
ax.set_title(f"scale {spec['base']['scale']}, mean and range over {len(spec['sweep']['seeds'])} seeds")
ax.grid(alpha=0.3)
ax.legend()
png = os.path.join(OUT, "example-hhzs", "hhzs_over_b3.png")
fig.savefig(png, dpi=120, bbox_inches="tight")
print("plot:", png)

# %% [markdown]
# What the full sweep gave at the commit that added this example (scale 0.01, 3
# seeds; `docs/python.md`): HHZS ahead of B3 at every point but two, by the most
# at the smallest budget (10 zones: ×1.22 at α = 1.2 to ×1.50 at α = 0.7, where
# B3's static placement leaves little of the hot data on the SSD); close to
# parity at 20-40 zones with the most skewed workload (×0.99-1.03 at α = 1.2);
# ×1.13-1.17 again at 60 zones. Seeds move a point by at most ±0.04. This is a
# small-scale look, not a reproduction: `zonelab reproduce hhzs` compares with the
# paper's numbers.
