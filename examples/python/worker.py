#!/usr/bin/env python3
"""A remote worker for the `resize` task type, in Python with the standard library only.

Start the service in one terminal (`scripts/dev.sh run`: it declares `resize` remote and makes the keys), then, with
the client installed (clients/python/README.md: `pip install ./clients/python` into a virtual environment), run this
in another, from the repository's root:

    /tmp/v/bin/python examples/python/worker.py --demo 5

It submits five `resize` tasks (with the trial's admin key), runs them (with its worker key), prints each result,
and goes on serving until Ctrl-C. Settings from the environment, else from target/trial-keys.env:
TASKFENCE_URL (default http://localhost:8080, several separated by commas), TASKFENCE_WORKER_KEY, TASKFENCE_KEY
(for --demo), TASKFENCE_TYPE (default resize), TASKFENCE_WORKER_NAME, TASKFENCE_CONCURRENCY (default 4).
"""

from __future__ import annotations

import argparse
import logging
import os
import pathlib
import sys
import threading
import time

from taskfence import Client, Job, PermanentError, Worker

ROOT = pathlib.Path(__file__).resolve().parents[2]


def setting(name: str, default: str = "") -> str:
    """The environment's value, else target/trial-keys.env's (written by scripts/dev.sh run), else the default."""
    if os.environ.get(name):
        return os.environ[name]
    keys = ROOT / "target" / "trial-keys.env"
    if keys.exists():
        for line in keys.read_text().splitlines():
            key, _, value = line.partition("=")
            if key == name and value:
                return value
    return default


def resize(job: Job) -> dict:
    """The work: here a stand-in that halves an image's width. A real one would write the image somewhere,
    sending job.fencing_token along so that a late write from a stalled worker is refused there."""
    width = job.payload.get("width")
    if not isinstance(width, int) or width <= 0:
        raise PermanentError(f"width must be a positive integer, not {width!r}")
    for step in range(10):  # a long job looks at its claim now and then, and says how far it has come
        if job.superseded.is_set():
            return {}
        job.progress({"done": step, "total": 10, "message": f"resizing to {width // 2}"})  # shown in the task
        time.sleep(0.01)
    return {"width": width // 2, "by": "python", "worker": WORKER_NAME, "fencingToken": job.fencing_token}


def demo(url: str, key: str, task_type: str, count: int) -> None:
    client = Client(url, key)
    for n in range(count):
        task = client.submit_and_wait(task_type, {"width": 640 + n}, timeout=60)
        print(f"task {task['id']} {task['status']}: {task['result']}", flush=True)


WORKER_NAME = setting("TASKFENCE_WORKER_NAME", f"python-{os.getpid()}")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A remote worker for Taskfence's resize tasks")
    parser.add_argument("--demo", type=int, default=0, help="submit this many tasks first and print their results")
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    url = setting("TASKFENCE_URL", "http://localhost:8080")
    task_type = setting("TASKFENCE_TYPE", "resize")
    worker_key = setting("TASKFENCE_WORKER_KEY")
    if not worker_key:
        sys.exit("no worker key: set TASKFENCE_WORKER_KEY, or start the service with scripts/dev.sh run")
    if arguments.demo:
        threading.Thread(target=demo, args=(url, setting("TASKFENCE_KEY"), task_type, arguments.demo),
                         daemon=True).start()
    worker = Worker(Client(url, worker_key), [task_type], resize, name=WORKER_NAME,
                    concurrency=int(setting("TASKFENCE_CONCURRENCY", "4")))
    print(f"{WORKER_NAME} serving {task_type} tasks of {url}; Ctrl-C stops it", flush=True)
    worker.run()
