#!/usr/bin/env python3
"""The load bench's driver for one engine (bench/postgres/load.sh runs it; see there).

Starts N `bandsim serve` bands, pairs a gateway with each (own keystore and spool directory),
runs N `band stream --json` gateways at once into one store, reaps each with wait4 (its
rusage), then a last `band sync` per band, stops the bands (their truth files complete), exports
the store once and compares every band's minutes with its truth — the same comparison as the
end-to-end tests' `compare(truth:below:stored:)` (Tests/EndToEndTests/Support/DemoWorld.swift).
Exit 0 when every band equals its truth, 1 otherwise or when a process failed. It first checks
its own checker on broken fixtures (self_test: a lost, a duplicated and a wrong minute).
"""
import argparse
import ctypes
import json
import os
import signal
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
libc = ctypes.CDLL(None, use_errno=True)
TYPES = ("step-count", "distance-walking-running", "active-energy-burned", "heart-rate")
START = "2026-11-30T06:00:00Z"


def die_with_parent():
    """Runs in each child before exec: SIGKILL when the driver dies, however it dies."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def clock_ticks_of(pid):
    """utime + stime (+ cutime + cstime of reaped children when `reaped`) of one process, in ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
    return int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def server_cpu_seconds(postmaster):
    """CPU of the PostgreSQL server so far: the postmaster, its live children (backends,
    checkpointer, WAL writer…) and the children it has reaped (backends of gone connections)."""
    if postmaster == 0:
        return 0.0
    own, reaped = clock_ticks_of(postmaster)
    total = own + reaped
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == postmaster:
                total += int(fields[11]) + int(fields[12])
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


def percentile(sorted_values, fraction):
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, int(round(fraction * (len(sorted_values) - 1)))))
    return sorted_values[index]


class LockSampler:
    """Once a second while the gateways run: how many of the server's client backends are
    waiting for the store's writers' lock (an advisory lock, docs/architecture.md) and how many
    are running a statement, from pg_stat_activity through psql. What the lock's queue is says
    whether the one-writer rule or the machine is what saturates."""
    QUERY = ("SELECT count(*) FILTER (WHERE wait_event = 'advisory'), count(*) FILTER (WHERE state = 'active') "
             "FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")

    def __init__(self, store, engine):
        self.store = store if engine == "postgresql" else None
        self.samples = []
        self.last = 0.0

    def tick(self):
        if self.store is None or time.monotonic() - self.last < 1:
            return
        self.last = time.monotonic()
        result = subprocess.run(["psql", "--no-psqlrc", "--tuples-only", "--no-align", "--field-separator=,", self.store,
                                 "--command", self.QUERY], capture_output=True, text=True, timeout=30)
        if result.returncode == 0 and result.stdout.strip():
            waiting, active = result.stdout.strip().split(",")
            self.samples.append((int(waiting), int(active)))

    def summary(self):
        if not self.samples:
            return None
        waiting = sorted(w for w, _ in self.samples)
        return (f"{sum(waiting) / len(waiting):.1f} mean, {waiting[len(waiting) // 2]} median, {waiting[-1]} most "
                f"of the gateways waiting for the writers' lock ({len(waiting)} samples, 1 s apart)")


def wait_all(processes, deadline, tick=None):
    """Reaps every Popen in `processes` with wait4: {pid: (status, cpu seconds)}; calls `tick`
    about every 0.1 s meanwhile."""
    results = {}
    pending = {p.pid: p for p in processes}
    while pending:
        if tick:
            tick()
        if time.monotonic() > deadline:
            raise SystemExit(f"load: the store fell behind: {len(pending)} process(es) still running past the deadline: "
                             + " ".join(" ".join(p.args[:2]) for p in pending.values()))
        reaped_any = False
        for pid in list(pending):
            done, status, usage = os.wait4(pid, os.WNOHANG)   # this child only: never a band's simulator
            if done == 0:
                continue
            process = pending.pop(pid)
            process.returncode = os.waitstatus_to_exitcode(status)
            results[pid] = (process.returncode, usage.ru_utime + usage.ru_stime)
            reaped_any = True
        if not reaped_any:
            time.sleep(0.1)
    return results


def report_failures(processes, what):
    """Prints each reaped gateway that exited non-zero, with the end of its stderr; returns them."""
    failed = [p for p in processes if p.returncode != 0]
    for p in failed:
        with open(p.err_path) as f:
            print(f"load: band {p.band.index}: {what} exited {p.returncode}: {f.read().strip()[-1500:]}", file=sys.stderr)
    return failed


class Band:
    def __init__(self, index, work, args):
        self.index = index
        self.directory = os.path.join(work, f"band{index:03d}")
        os.makedirs(self.directory)
        self.socket = os.path.join(self.directory, "band.sock")
        self.truth_path = os.path.join(self.directory, "truth.ndjson")
        self.address = "sim:" + self.socket
        self.environment = dict(os.environ, XDG_CONFIG_HOME=os.path.join(self.directory, "config"),
                                XDG_STATE_HOME=os.path.join(self.directory, "state"), BANDKIT_STORE=args.store)
        self.simulator = None
        self.device = None
        self.outputs = []

    def start(self, args):
        log = open(os.path.join(self.directory, "bandsim.log"), "w")
        self.simulator = subprocess.Popen(
            [os.path.join(args.bin, "bandsim"), "serve", "--socket", self.socket, "--truth", self.truth_path,
             "--state", os.path.join(self.directory, "flash.img"), "--seed", str(self.index + 1),
             "--speed", str(args.speed), "--start", START, "--history-days", str(args.history_days)],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)

    def gateway(self, args, command):
        """Starts `band COMMAND…`, stdout and stderr to files in the band's directory; the output
        of a `--json` run is read back by events()."""
        name = f"{command[0]}{len(self.outputs)}"
        out_path = os.path.join(self.directory, name + ".out")
        if "--json" in command:
            self.outputs.append(out_path)
        process = subprocess.Popen([os.path.join(args.bin, "band")] + command,
                                   stdout=open(out_path, "w"), stderr=open(os.path.join(self.directory, name + ".err"), "w"),
                                   env=self.environment, preexec_fn=die_with_parent)
        process.band = self
        process.err_path = os.path.join(self.directory, name + ".err")
        return process

    def events(self):
        for path in self.outputs:
            with open(path) as f:
                for line in f:
                    line = line.strip()
                    if line:
                        yield json.loads(line)   # every line `band --json` writes must parse

    def stop(self):
        if self.simulator and self.simulator.poll() is None:
            self.simulator.send_signal(signal.SIGTERM)
            try:
                self.simulator.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.simulator.kill()
                self.simulator.wait()


def compare(truth, cursor, stored):
    """The store's samples of one band against its truth below the cursor: each minute exactly
    once per type with the band's values, nothing else up to the last of them, sums equal."""
    problems = []
    records = [truth[s] for s in range(cursor) if s in truth]
    if len(records) != cursor:
        problems.append(f"truth lacks records below {cursor}: has {len(records)}")
    by_minute = {r["minute"]: r for r in records}
    if len(by_minute) != len(records):
        problems.append("truth repeats minutes")
    last_minute = max((r["minute"] for r in records), default="")
    seen = {t: set() for t in TYPES}
    sums = {t: 0.0 for t in TYPES}
    for sample in stored:
        kind, start, value = sample["type"], sample["start"], sample["value"]
        if value < 0:
            problems.append(f"{kind} at {start} is negative")
        if kind not in TYPES:
            continue
        record = by_minute.get(start)
        if record is None:
            if start <= last_minute:
                problems.append(f"{kind} at {start}: the band has no such minute")
            continue
        if start in seen[kind]:
            problems.append(f"{kind} at {start} stored twice")
        seen[kind].add(start)
        metadata = sample.get("metadata") or {}
        if metadata.get("bandkit.origin") != "history":
            problems.append(f"{kind} at {start} is still provisional")
        sums[kind] += value
        expected = {"step-count": record["steps"], "distance-walking-running": record["distance_m"],
                    "active-energy-burned": record["energy_kcal"]}.get(kind, record.get("hr_avg"))
        if kind == "heart-rate" and record.get("hr_avg") is not None and (
                metadata.get("bandkit.hr.min") != str(int(record["hr_min"])) or metadata.get("bandkit.hr.max") != str(int(record["hr_max"]))):
            problems.append(f"heart rate at {start}: min/max differ from the band's")
        if expected is None:
            problems.append(f"{kind} at {start}: stored but the band measured none")
        elif abs(expected - value) > 1e-6:
            problems.append(f"{kind} at {start}: {value}, band {expected}")
    for kind in TYPES[:3]:
        if len(seen[kind]) != len(records):
            problems.append(f"{kind}: {len(seen[kind])} minutes stored of {len(records)}")
    heart = sum(1 for r in records if r.get("hr_avg") is not None)
    if len(seen["heart-rate"]) != heart:
        problems.append(f"heart-rate: {len(seen['heart-rate'])} minutes of {heart}")
    for kind, field in (("step-count", "steps"), ("distance-walking-running", "distance_m"), ("active-energy-burned", "energy_kcal")):
        total = sum(r[field] for r in records)
        if abs(sums[kind] - total) > 1e-3:
            problems.append(f"{kind} total {sums[kind]}, band {total}")
    return problems[:20]


def self_test():
    """The checker must see a lost, a duplicated and a wrong minute (a bench that cannot fail
    proves nothing): three broken copies of a good two-minute store."""
    truth = {s: {"seq": s, "minute": f"2026-11-30T06:0{s}:00Z", "steps": 10.0 + s, "distance_m": 7.5, "energy_kcal": 0.5,
                 "hr_avg": 70.0, "hr_min": 65, "hr_max": 75} for s in range(2)}
    good = []
    for record in truth.values():
        for kind, value in (("step-count", record["steps"]), ("distance-walking-running", 7.5), ("active-energy-burned", 0.5), ("heart-rate", 70.0)):
            good.append({"type": kind, "start": record["minute"], "value": value,
                         "metadata": {"bandkit.origin": "history", "bandkit.hr.min": "65", "bandkit.hr.max": "75"}})
    assert compare(truth, 2, good) == [], compare(truth, 2, good)
    wrong = [dict(sample, value=sample["value"] + 1) if sample["type"] == "step-count" else sample for sample in good]
    for name, broken in (("lost", good[1:]), ("duplicated", good + good[:1]), ("wrong", wrong)):
        assert compare(truth, 2, broken), f"the truth check missed a {name} minute"


def main():
    self_test()
    parser = argparse.ArgumentParser()
    for name in ("bin", "work", "store", "engine"):
        parser.add_argument("--" + name, required=True)
    for name in ("server-pid", "bands", "speed", "history-days", "stream", "sync-every"):
        parser.add_argument("--" + name, type=int, required=True)
    args = parser.parse_args()
    # SIGTERM/SIGINT end the driver through its finally (bands stopped); its children also get
    # SIGKILL if it dies some other way (PR_SET_PDEATHSIG).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(args.work)
    bands = [Band(i, args.work, args) for i in range(args.bands)]
    try:
        return run(bands, args)
    finally:
        for band in bands:
            band.stop()


def run(bands, args):
    for band in bands:
        band.start(args)
    deadline = time.monotonic() + 120
    for band in bands:
        while not os.path.exists(band.socket):
            if band.simulator.poll() is not None or time.monotonic() > deadline:
                print(f"load: band {band.index}: bandsim serve did not start (see {band.directory}/bandsim.log)", file=sys.stderr)
                return 1
            time.sleep(0.05)
    began = time.monotonic()
    pairs = [band.gateway(args, ["pair", band.address]) for band in bands]   # all at once; not measured
    wait_all(pairs, time.monotonic() + 600)
    if report_failures(pairs, "band pair"):
        return 1
    print(f"    {len(bands)} bands started and paired in {time.monotonic() - began:.0f} s")

    # The measured phase: every gateway at once.
    server_before = server_cpu_seconds(args.server_pid)
    started = time.monotonic()
    streams = [band.gateway(args, ["stream", band.address, "--for", f"{args.stream}s", "--sync-every", f"{args.sync_every}s",
                                   "--keep-band-clock", "--json"]) for band in bands]
    sampler = LockSampler(args.store, args.engine)
    # A store that falls behind (the 600× run in docs/performance.md) would keep the gateways
    # syncing ever bigger batches: five minutes past the streams' end, the run fails instead.
    reaped = wait_all(streams, started + args.stream + 300, tick=sampler.tick)
    elapsed = time.monotonic() - started
    server_cpu = server_cpu_seconds(args.server_pid) - server_before
    failed = report_failures(streams, "band stream")
    gateway_cpu = sum(cpu for _, cpu in reaped.values())
    timings = {"history": [], "live": []}
    rows = 0
    outages = 0
    for band in bands:
        for event in band.events():
            if event["event"] == "store_write":
                timings[event["batch"]].append(event["us"] / 1000)
                rows += event["rows"]
            elif event["event"] == "store_unavailable":
                outages += 1
            elif event["event"] == "device" and band.device is None and event.get("serial"):
                # BandDeviceInfo.deviceIdentifier: manufacturer/model/serial, else the address.
                band.device = "/".join(event[k] for k in ("manufacturer", "model", "serial") if event.get(k) is not None)
    if failed:
        return 1

    # Two band minutes later each band has recorded the minute its stream ended in: a last sync.
    time.sleep(120 / args.speed + 1)
    syncs = [band.gateway(args, ["sync", band.address, "--keep-band-clock", "--json"]) for band in bands]
    wait_all(syncs, time.monotonic() + 300)
    if report_failures(syncs, "the last band sync"):
        return 1
    for band in bands:
        band.stop()
    print(f"    streams ended after {elapsed:.0f} s; the last syncs (after two band minutes) {time.monotonic() - started - elapsed:.0f} s later")

    # Every band's minutes against its truth.
    export = subprocess.run([os.path.join(args.bin, "health"), "export", "--store", args.store],
                            capture_output=True, text=True, timeout=1800)
    if export.returncode != 0:
        print(f"load: health export failed ({export.returncode}): {export.stderr.strip()[-2000:]}", file=sys.stderr)
        return 1
    by_device = {}
    for line in export.stdout.splitlines():
        sample = json.loads(line)
        if not isinstance(sample.get("value"), (int, float)):
            continue   # sleep stages (a value name) and workouts: not minute samples
        sync_id = sample.get("sync_id") or ""
        by_device.setdefault(sync_id.split("|")[0], []).append(sample)
    devices = [band.device or band.address for band in bands]
    if len(set(devices)) != len(devices):
        print(f"load: two bands share a device identifier: {sorted(devices)}", file=sys.stderr)
        return 1
    bad = 0
    minutes = 0
    for band, device in zip(bands, devices):
        cursor = max((e["cursor"] for e in band.events() if e["event"] == "history_committed"), default=None)
        truth = {}
        with open(band.truth_path) as f:
            for line in f:
                record = json.loads(line)
                truth[record["seq"]] = record
        problems = ["committed nothing"] if cursor is None else compare(truth, cursor, by_device.get(device, []))
        minutes += cursor or 0
        if problems:
            bad += 1
            print(f"load: band {band.index} ({device}): " + "; ".join(problems[:5]), file=sys.stderr)

    everything = sorted(timings["history"] + timings["live"])
    print(f"    {rows:,} rows in {len(everything):,} commits in {elapsed:.1f} s: {rows / elapsed:,.0f} rows/s committed"
          f" ({args.speed * args.stream / 60:.0f} band minutes streamed per band after {args.history_days} day(s) of history)")
    for name, values in (("all", everything), ("history", sorted(timings["history"])), ("live", sorted(timings["live"]))):
        if values:
            print(f"    commit latency {name:8s} ({len(values):5d}): p50 {percentile(values, 0.5):8.1f} ms   "
                  f"p99 {percentile(values, 0.99):8.1f} ms   max {values[-1]:8.1f} ms")
    def per_row(cpu):
        return f"{cpu / rows * 1e6:.0f}" if rows else "-"
    print(f"    CPU: gateways {gateway_cpu:.1f} s ({per_row(gateway_cpu)} µs per row, notifications included), "
          + (f"server {server_cpu:.1f} s ({per_row(server_cpu)} µs per row), " if args.server_pid else "no server (SQLite), ")
          + f"together {per_row(gateway_cpu + server_cpu)} µs per row; store outages seen {outages}")
    if sampler.summary():
        print(f"    writers' lock: {sampler.summary()}")
    print(f"    truth: {len(bands) - bad} of {len(bands)} bands exact ({minutes:,} history minutes checked), "
          f"{'0 lost, 0 duplicated' if bad == 0 else f'{bad} band(s) differ'}")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
