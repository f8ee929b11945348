"""Every API function against the CLI's JSON for the same configuration: the
numbers must be identical, since both run the same request in the library."""

from __future__ import annotations

import json
import pathlib
import threading
import time
import tomllib

import pytest

import zonelab
from conftest import REPO, cli_error


@pytest.mark.parametrize(
    "device,job,flags",
    [
        ("zn540", dict(rw="randread", bs="4k", io_size="8m", iodepth=4),
         ["--rw", "randread", "--bs", "4k", "--io-size", "8m", "--iodepth", "4"]),
        ("zn540", dict(rw="write", bs="1MiB", io_size="64m", seed=3),
         ["--rw", "write", "--bs", "1MiB", "--io-size", "64m", "--seed", "3"]),
        ("st14000nm0007", dict(rw="randread", bs=4096, io_size=2 << 20),
         ["--rw", "randread", "--bs", "4096", "--io-size", "2097152"]),
        ("ssd-conventional", dict(rw="randrw", bs="16k", runtime="50ms", rwmixread=70, precondition=True, size="256m"),
         ["--rw", "randrw", "--bs", "16k", "--runtime", "50ms", "--rwmixread", "70", "--precondition", "--size", "256m"]),
        ("ssd-conventional", dict(rw="randwrite", bs="4k", io_size="16m", no_drain=True, sample_interval="10ms"),
         ["--rw", "randwrite", "--bs", "4k", "--io-size", "16m", "--no-drain", "--sample-interval", "10ms"]),
    ],
)
def test_bench_equals_the_cli(cli_json, device, job, flags):
    frame, raw = zonelab.bench(device, progress=False, **job)
    assert raw == cli_json("bench", "--device", device, *flags, "--json")
    assert len(frame) == 1
    assert frame["throughput_mib_s"][0] == raw["throughput_mib_s"]
    assert frame["latency_p99_ns"][0] == raw["latency"]["p99_ns"]
    assert frame["waf"][0] == raw["device_stats"]["write_amplification"]


def test_bench_with_overrides_equals_the_cli_with_set(cli_json):
    overrides = {"capacity.capacity_mib": 1024, "flash.pages_per_block": 6,
                 "capacity.over_provisioning_percent": 20}
    frame, raw = zonelab.bench("ssd-conventional", rw="randwrite", io_size="1g", precondition=True,
                               iodepth=16, overrides=overrides, progress=False)
    sets = [a for k, v in overrides.items() for a in ("--set", f"{k}={v}")]
    assert raw == cli_json("bench", "--device", "ssd-conventional", "--rw", "randwrite",
                           "--io-size", "1g", "--precondition", "--iodepth", "16", *sets, "--json")
    assert raw["config"]["device_overrides"] == overrides
    assert frame["device.capacity.over_provisioning_percent"][0] == 20
    # An override is a real change: the same job without it differs.
    _, plain = zonelab.bench("ssd-conventional", rw="randwrite", io_size="1g", iodepth=16,
                             precondition=True,
                             overrides={k: v for k, v in overrides.items() if "over" not in k},
                             progress=False)
    assert plain["device_stats"]["write_amplification"] != raw["device_stats"]["write_amplification"]


def test_sizes_as_numbers_or_text_are_the_same_run():
    _, a = zonelab.bench("zn540", rw="randread", bs="4k", io_size="1m", progress=False)
    _, b = zonelab.bench("zn540", rw="randread", bs=4096, io_size=1 << 20, progress=False)
    assert a == b


def _trace(tmp_path: pathlib.Path) -> pathlib.Path:
    # time_ns,op,offset_bytes,size_bytes: a deterministic mix of reads and writes.
    lines = []
    for i in range(3000):
        op = "W" if (i * 7) % 10 < 4 else "R"
        offset = ((i * 2654435761) % 50000) * 4096
        lines.append(f"{i * 20000},{op},{offset},{4096 * (1 + i % 4)}")
    p = tmp_path / "t.csv"
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.mark.parametrize("opts,flags", [
    (dict(speed=2.0), ["--speed", "2"]),
    (dict(qd=8, limit=2000), ["--qd", "8", "--limit", "2000"]),
    (dict(precondition="footprint", no_drain=True), ["--precondition", "footprint", "--no-drain"]),
])
def test_replay_equals_the_cli(cli_json, tmp_path, opts, flags):
    trace = _trace(tmp_path)
    frame, raw = zonelab.replay("ssd-conventional", trace, format="csv", progress=False, **opts)
    assert raw == cli_json("replay", "--device", "ssd-conventional", "--trace", str(trace),
                           "--format", "csv", *flags, "--json")
    assert frame["ops"][0] == raw["ops"] > 0


def test_ycsb_equals_the_cli(cli_json):
    frame, raw = zonelab.ycsb("hhzs", "a", scale=0.0005, progress=False)
    assert raw == cli_json("ycsb", "--scheme", "hhzs", "--workload", "a", "--scale", "0.0005", "--json")
    assert frame["run_ops_per_s"][0] == raw["run"]["summary"]["ops_per_s"]
    frame, raw = zonelab.ycsb("b3", "mix", scale=0.0005, read_ratio=0.9, alpha=1.2, ssd_zones=30,
                              overrides={"hdd.mechanics.rpm": 5400}, progress=False)
    assert raw == cli_json("ycsb", "--scheme", "b3", "--workload", "mix", "--scale", "0.0005",
                           "--read-ratio", "0.9", "--alpha", "1.2", "--ssd-zones", "30",
                           "--set", "hdd.mechanics.rpm=5400", "--json")
    assert frame["hdd.mechanics.rpm"][0] == 5400


def test_ycsb_takes_the_metadata_zone_ablation():
    # 5 SSD zones: ZenFS keeps 3, B3's RocksDB metadata files hold 2, nothing is left.
    with pytest.raises(zonelab.ZonelabError, match="metadata-file zones leave no empty zone"):
        zonelab.ycsb("b3", "load", scale=0.0005, ssd_zones=5, progress=False)
    frame, raw = zonelab.ycsb("b3", "load", scale=0.0005, ssd_zones=5, no_metadata_zones=True,
                              progress=False)
    assert raw["no_metadata_zones"] is True
    assert raw["load"]["puts"] == 104_858


def test_ycsb_overrides_must_name_their_device():
    with pytest.raises(zonelab.ZonelabError, match="start it with `ssd.` or `hdd.`"):
        zonelab.ycsb("hhzs", "a", scale=0.0005, overrides={"flash.channels": 4}, progress=False)


def test_reproduce_equals_the_cli_results_json(cli, tmp_path):
    r = zonelab.reproduce("devices", scale=0.02, seed=3, progress=False)
    cli("reproduce", "devices", "--scale", "0.02", "--seed", "3", "--out", str(tmp_path))
    assert r.raw == json.loads((tmp_path / "results.json").read_text())
    assert list(r.claims["id"]) == [c["id"] for c in r.raw["claims"]]
    assert r.claims["holds"].all()
    points = sum(len(s["points"]) for f in r.raw["figures"] for s in f["series"])
    assert len(r.series) == points > 0
    bar = r.series[r.series["kind"] == "bar"]
    assert bar["category"].notna().all()


def test_reproduce_draws_only_for_targets_that_take_medians():
    with pytest.raises(zonelab.ZonelabError, match="target devices runs once and takes no draws"):
        zonelab.reproduce("devices", scale=0.02, draws=3, progress=False)
    with pytest.raises(zonelab.ZonelabError, match="draws 0 is out of range"):
        zonelab.reproduce("mios", scale=0.01, draws=0, progress=False)


def test_reproduce_cpu_jitter_only_for_targets_that_model_it():
    with pytest.raises(zonelab.ZonelabError, match="target devices does not model run-to-run CPU variation"):
        zonelab.reproduce("devices", scale=0.02, cpu_jitter_ppm=0, progress=False)
    with pytest.raises(zonelab.ZonelabError, match="cpu jitter 600000 ppm is out of range"):
        zonelab.reproduce("hhzs", scale=0.002, cpu_jitter_ppm=600_000, progress=False)


def test_devices_equal_the_cli(cli_json):
    assert zonelab.devices().to_dict("records") == cli_json("devices", "--json")


def test_profile_is_the_toml_and_takes_overrides():
    with open(REPO / "profiles" / "zn540.toml", "rb") as f:
        assert zonelab.profile("zn540") == tomllib.load(f)
    p = zonelab.profile("zn540", {"flash.channels": 16, "namespace.lba_formats.4.metadata_bytes": 128})
    assert p["flash"]["channels"] == 16
    assert p["namespace"]["lba_formats"][4]["metadata_bytes"] == 128


@pytest.mark.parametrize("overrides,sets,needle", [
    ({"flash.channels": 0}, ["flash.channels=0"], "field `flash.channels` = 0 is out of range (allowed: 1..=64)"),
    ({"flash.chanels": 4}, ["flash.chanels=4"], "unknown field `chanels`"),
    ({"flash.channels": "eight"}, ["flash.channels=eight"], "invalid type: string \"eight\""),
    ({"model.x": 1}, ["model.x=1"], "`model` is a string, not a table"),
    ({"flash..channels": 1}, ["flash..channels=1"], "has an empty part"),
])
def test_override_errors_are_the_clis(cli, overrides, sets, needle):
    with pytest.raises(zonelab.ZonelabError) as e:
        zonelab.bench("zn540", io_size="1m", overrides=overrides, progress=False)
    cli_message = cli_error(cli("bench", "--device", "zn540", "--io-size", "1m",
                                *[a for s in sets for a in ("--set", s)], ok=False))
    assert str(e.value) == cli_message
    assert needle in cli_message
    with pytest.raises(zonelab.ZonelabError) as p:
        zonelab.profile("zn540", overrides)
    assert str(p.value) == cli_message


def test_an_override_fails_as_the_same_value_in_a_file(cli, tmp_path):
    text = (REPO / "profiles" / "zn540.toml").read_text().replace("channels = 8 ", "channels = 0 ")
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    in_file = cli_error(cli("bench", "--device", str(bad), ok=False))
    with pytest.raises(zonelab.ZonelabError) as e:
        zonelab.bench("zn540", overrides={"flash.channels": 0}, progress=False)
    assert str(e.value).replace("zn540 with flash.channels=0", str(bad)) == in_file


@pytest.mark.parametrize("job,flag,needle", [
    (dict(bs="4x"), ["--bs", "4x"], "bs: `4x` has an unknown size suffix"),
    (dict(rw="sideways"), ["--rw", "sideways"], "rw: unknown rw mode `sideways`"),
    (dict(runtime="soon"), ["--runtime", "soon"], "runtime: `soon` is not a duration"),
])
def test_bad_options_are_named_as_on_the_command_line(cli, job, flag, needle):
    with pytest.raises(zonelab.ZonelabError) as e:
        zonelab.bench("zn540", progress=False, **job)
    assert str(e.value).startswith(needle)
    assert cli_error(cli("bench", "--device", "zn540", *flag, ok=False)) == "--" + str(e.value)


def test_a_sample_interval_too_fine_for_the_run_is_the_clis_error(cli):
    with pytest.raises(zonelab.ZonelabError) as e:
        zonelab.bench("zn540", io_size="64m", sample_interval="1ns", progress=False)
    assert str(e.value).startswith("--sample-interval 1 ns gives more than")
    flags = ["--io-size", "64m", "--sample-interval", "1ns"]
    assert cli_error(cli("bench", "--device", "zn540", *flags, ok=False)) == str(e.value)


def test_unknown_options_and_devices_are_errors():
    with pytest.raises(zonelab.ZonelabError, match="bench options: unknown field `iodepht`"):
        zonelab.bench("zn540", iodepht=4)
    with pytest.raises(zonelab.ZonelabError, match="unknown device profile `zn999`"):
        zonelab.bench("zn999")
    with pytest.raises(zonelab.ZonelabError, match="`kind` is set by the call itself"):
        zonelab.bench("zn540", kind="replay")


def test_long_calls_release_the_gil():
    # A run of about half a second on another thread: if it held the GIL, this
    # thread could not wake up from its sleeps until it ended.
    done = threading.Event()
    result = {}

    def run():
        result["r"] = zonelab.bench("ssd-conventional", rw="randwrite", io_size="3g", iodepth=32,
                                    precondition=True,
                                    overrides={"capacity.capacity_mib": 1024, "flash.pages_per_block": 6},
                                    progress=False)
        done.set()

    t = threading.Thread(target=run)
    started = time.monotonic()
    t.start()
    ticks = 0
    while not done.is_set():
        time.sleep(0.005)
        ticks += 1
    t.join()
    elapsed = time.monotonic() - started
    assert elapsed > 0.1, "the run is too short to tell"
    assert ticks >= 10, f"this thread woke up {ticks} times in {elapsed:.2f} s: the GIL was held"


def test_progress_reaches_the_end():
    calls = []
    _, raw = zonelab.bench("zn540", rw="read", bs="1m", io_size="512m",
                           progress=lambda done, total, unit, label: calls.append((done, total, unit)))
    assert calls, "no progress reported"
    assert calls[-1] == (raw["bytes"], raw["bytes"], "bytes")
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))


def test_throughput_series_is_a_frame():
    r = zonelab.bench("zn540", rw="write", bs="1m", io_size="2g", progress=False)
    ts = r.throughput()
    assert list(ts.columns) == ["time_s", "mib_s"]
    assert len(ts) == len(r.raw["throughput_series"]["mib_s"]) > 1
