"""Starts TensorBoard itself (PyPI's tensorboard, the project venv's) on a sweep's folder and asks its
HParams dashboard, over HTTP as the browser does, for the experiment and its session groups. Every
run of the sweep must be listed once, with the settings run.json records (the ones the sweep
varied among them) and, as its final metrics, the last epoch's validation loss and accuracy that
metrics.jsonl records; each finished run's status must read success.

Usage: check_tensorboard_hparams.py SWEEP_DIR"""
import json
import math
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fail(why):
    raise SystemExit(f"FAIL: {why}")


def post(base, route, body):
    request = urllib.request.Request(f"{base}/data/plugin/hparams/{route}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "X-TensorBoard-Feature-Flags": "{}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def runs_of(folder):
    """{run name: (run.json, last epoch of metrics.jsonl)} for every run folder under `folder`."""
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not os.path.isfile(os.path.join(path, "run.json")):
            continue
        with open(os.path.join(path, "run.json")) as f:
            run = json.load(f)
        epochs = [json.loads(line) for line in open(os.path.join(path, "metrics.jsonl")) if '"type":"epoch"' in line]
        out[name] = (run, epochs[-1])
    return out


def main(folder):
    runs = runs_of(folder)
    if len(runs) < 2:
        fail(f"{folder} holds {len(runs)} runs; a sweep was meant")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "tensorboard.main", "--logdir", folder, "--host", "127.0.0.1",
                               "--port", str(port), "--load_fast=false", "--reload_interval", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        experiment = None
        for _ in range(120):  # TensorBoard loads the runs in the background: ask until all are there
            time.sleep(0.5)
            if server.poll() is not None:
                fail(f"TensorBoard ended at start: {server.stderr.read()[-2000:]}")
            try:
                experiment = post(base, "experiment", {"experimentName": ""})
            except (urllib.error.URLError, ConnectionError):
                continue
            if len(experiment.get("metricInfos", [])) >= 2:
                break
        if not experiment or not experiment.get("hparamInfos"):
            fail(f"TensorBoard's HParams dashboard found no hyperparameters: {experiment}")
        names = {h["name"] for h in experiment["hparamInfos"]}
        metrics = {(m["name"].get("group", ""), m["name"]["tag"]) for m in experiment["metricInfos"]}
        for want in [("validation", "epoch_accuracy"), ("validation", "epoch_loss")]:
            if want not in metrics:
                fail(f"the dashboard lists no metric {want}: {sorted(metrics)}")
        varied = set()
        for run, _ in runs.values():
            varied.update(run.get("sweep", {}).get("settings", {}).keys())
        if not varied or not varied <= names:
            fail(f"the sweep varied {sorted(varied)}, the dashboard lists {sorted(names)}")
        groups = post(base, "session_groups", {
            "experimentName": "", "startIndex": 0, "sliceSize": 1000, "aggregationType": "AGGREGATION_AVG",
            "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
            "colParams": [{"hparam": n} for n in sorted(names)] +
                         [{"metric": {"group": g, "tag": t}} for g, t in sorted(metrics)]})
        sessions = {s["name"]: (g, s) for g in groups.get("sessionGroups", []) for s in g["sessions"]}
        if sorted(sessions) != sorted(runs):
            fail(f"the dashboard lists sessions {sorted(sessions)}, the sweep ran {sorted(runs)}")
        for name, (run, last) in runs.items():
            group, session = sessions[name]
            config = run["config"]
            want = {"optimizer.learning_rate": config["optimizer"]["learning_rate"], "batch_size": config["batch_size"],
                    "devices.logical": config["devices"]["logical"], "model.name": config["model"]["name"],
                    **run["sweep"]["settings"]}
            for key, value in want.items():
                got = group["hparams"].get(key)
                if got != value and not (isinstance(got, float) and math.isclose(got, value, rel_tol=1e-12)):
                    fail(f"{name}: the dashboard says {key} = {got!r}, run.json {value!r}")
            values = {(m["name"].get("group", ""), m["name"]["tag"]): m["value"] for m in session["metricValues"]}
            for tag, key in [("epoch_accuracy", "val_accuracy"), ("epoch_loss", "val_loss")]:
                if not math.isclose(values.get(("validation", tag), math.nan), last[key], rel_tol=1e-6):
                    fail(f"{name}: the dashboard's final validation {tag} is {values.get(('validation', tag))}, "
                         f"metrics.jsonl's {last[key]}")
            if session.get("status") != "STATUS_SUCCESS":
                fail(f"{name}: finished, and the dashboard says {session.get('status')}")
        print(f"TensorBoard's HParams dashboard lists the {len(runs)} runs with {len(names)} settings and "
              f"{len(metrics)} metrics each, as recorded")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main(sys.argv[1])
