"""A worker loop for a remote type's tasks (docs/DESIGN.md, "Remote workers").

It claims as many tasks as it has free slots, runs each in a thread of its own with a heartbeat on a timer, and
ends each claim with the handler's result or failure. Once a claim no longer holds its task (a heartbeat or the end
answered 409: the task was cancelled, or this worker stalled past its lease and another took the task over), or
once the task's time-out has passed since the claim, the job's `superseded` event is set and nothing more is written
for it: a handler that takes long should look at it.
SIGTERM (or SIGINT) stops the claiming (after the claim under way, which waits up to `wait` seconds), gives running
jobs `drain_timeout` seconds, then hands back the claims of those still running: with the defaults, within 25 s,
below Kubernetes' default grace period. While the service cannot be reached (or answers 429) it backs off, up to
`max_backoff` seconds. A result the service cannot store (no JSON, over 1 MiB) ends the task DEAD with the reason.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from .client import ClaimSuperseded, Client, TaskfenceError, Unavailable

LOG = logging.getLogger("taskfence.worker")
MOST_AT_ONCE = 100
"""The most tasks one claim request may ask for."""


def _ends_at(claimed_at: float, timeout: Optional[str]) -> Optional[float]:
    """When an attempt with `timeout` (as the service writes it: "<n>ms", or "<n>s" when whole seconds) claimed at
    `claimed_at` must stop, on time.monotonic()'s clock; None for no time-out."""
    if not timeout:
        return None
    return claimed_at + (int(timeout[:-2]) / 1000.0 if timeout.endswith("ms") else float(timeout[:-1]))


class PermanentError(Exception):
    """Raised by a handler when no retry can succeed: the task is DEAD at once."""


@dataclass
class Job:
    """One claimed task as a handler gets it."""

    task_id: str
    type: str
    payload: Dict[str, Any]
    attempt: int
    fencing_token: int
    """Send it with every write to a store of your own, which refuses a token lower than one it has seen."""
    owner: Optional[str]
    claim_id: str
    traceparent: Optional[str] = None
    """The claim's W3C trace context, in the trace of the task's submission (None when the service does not trace):
    a handler's own spans continue it; the worker sends it with its calls about the claim."""
    superseded: threading.Event = field(default_factory=threading.Event)
    """Set once the claim no longer holds its task: stop, and write nothing more for it."""
    client: Optional[Client] = field(default=None, repr=False)
    _held_back: Optional[Dict[str, Any]] = field(default=None, repr=False)
    _sent_at: float = field(default=float("-inf"), repr=False)
    _ending: bool = field(default=False, repr=False)
    _progress_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def progress(self, progress: Dict[str, Any]) -> None:
        """Reports how far the job has come, e.g. {"done": 40, "total": 100, "message": "page 40"} (a JSON object of
        at most 4 KiB): the task's `progress` shows it within a second. At most one report a second is sent; one that
        comes sooner is held back and sent a second after the one before (the latest held back then), or with the
        job's end, so the latest is always sent. A report that cannot be sent is logged, never raised; a superseded
        claim's report sets `superseded`, as a heartbeat's 409 does."""
        if progress is None:
            LOG.warning("task %s: a progress report of None was not sent", self.task_id)
            return
        with self._progress_lock:
            wait = self._sent_at + 1.0 - time.monotonic()
            if wait > 0:
                if self._held_back is None and not self._ending:  # the first held back: sent once the second is over
                    timer = threading.Timer(wait, self._send_held_back)
                    timer.daemon = True
                    timer.start()
                self._held_back = progress
                return
            self._sent_at = time.monotonic()
        self._send(progress)

    def _end_progress(self) -> Optional[Dict[str, Any]]:
        """The report held back, if any, which the job's end carries (so that it reaches the replica the end does);
        none is sent after this."""
        with self._progress_lock:
            self._ending = True
            last, self._held_back = self._held_back, None
        return last

    def _send_held_back(self) -> None:
        with self._progress_lock:
            last, self._held_back = self._held_back, None
            if last is not None:
                self._sent_at = time.monotonic()
        if last is not None:
            self._send(last)

    def _send(self, progress: Dict[str, Any]) -> None:
        if self.superseded.is_set() or self.client is None:
            return
        try:
            self.client.progress(self.claim_id, progress, traceparent=self.traceparent)
        except ClaimSuperseded:
            if not self._ending:  # once the end is under way, its own answer says what became of the claim
                self.superseded.set()
        except (TaskfenceError, TypeError, ValueError) as failed:
            LOG.warning("task %s: a progress report was not taken (%s)", self.task_id, failed)


class Worker:
    """Runs `handler(job)` for tasks of `types`, `concurrency` at a time; its return value is the task's result."""

    def __init__(self, client: Client, types: Sequence[str], handler: Callable[[Job], Any], *,
                 concurrency: int = 4, wait: float = 10.0, name: Optional[str] = None,
                 drain_timeout: float = 15.0, max_backoff: float = 30.0):
        self.client = client
        self.types = list(types)
        self.handler = handler
        self.concurrency = concurrency
        self.wait = wait
        self.name = name or f"{socket.gethostname()}.{os.getpid()}"[:64]
        self.drain_timeout = drain_timeout
        self.max_backoff = max_backoff
        self._stopping = threading.Event()
        self._slots = threading.Semaphore(concurrency)
        self._running: Dict[str, Job] = {}
        self._lock = threading.Lock()

    def stop(self) -> None:
        """Stops claiming; run() then drains and returns."""
        self._stopping.set()

    def run(self) -> None:
        """Claims and runs tasks until stop() or SIGTERM/SIGINT; then drains and hands back what still runs."""
        if threading.current_thread() is threading.main_thread():
            for stop_signal in (signal.SIGTERM, signal.SIGINT):
                signal.signal(stop_signal, lambda number, frame: self.stop())
        try:
            self._claim_until_stopped()
        finally:
            self._drain()

    def _claim_until_stopped(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            if not self._slots.acquire(timeout=0.5):
                continue
            free = 1
            while free < min(self.concurrency, MOST_AT_ONCE) and self._slots.acquire(blocking=False):
                free += 1
            if self._stopping.is_set():
                self._release_slots(free)
                break
            try:
                claims = self.client.claim(self.types, max=free, wait=self.wait, worker=self.name)
                claimed_at = time.monotonic()  # an attempt's time-out counts from here
                failures = 0
            except TaskfenceError as failed:
                self._release_slots(free)
                if not isinstance(failed, Unavailable) and failed.status != 429:
                    raise  # a refused claim (key, types) is a configuration error: no retry mends it
                failures += 1
                pause = failed.retry_after or min(self.max_backoff, 0.5 * 2 ** min(failures, 10)) * random.uniform(0.5, 1.0)
                LOG.warning("claiming failed (%s); trying again in %.1f s", failed, pause)
                self._stopping.wait(pause)
                continue
            self._release_slots(free - len(claims))
            for claim in claims:
                job = Job(claim["taskId"], claim["type"], claim.get("payload") or {}, claim["attempt"],
                          claim["fencingToken"], claim.get("owner"), claim["claimId"], claim.get("traceparent"),
                          client=self.client)
                if self._stopping.is_set():
                    self._hand_back(job)  # claimed while stopping: another worker takes it
                    self._slots.release()
                    continue
                with self._lock:
                    self._running[job.claim_id] = job
                threading.Thread(target=self._run_one, args=(job, claim.get("leaseMillis", 60_000) / 1000.0,
                                                              _ends_at(claimed_at, claim.get("timeout"))),
                                 name=f"taskfence-{job.task_id}", daemon=True).start()

    def _release_slots(self, count: int) -> None:
        for _ in range(count):
            self._slots.release()

    def _run_one(self, job: Job, lease: float, ends_at: Optional[float]) -> None:
        done = threading.Event()
        beats = threading.Thread(target=self._heartbeats, args=(job, lease, done), daemon=True,
                                 name=f"taskfence-heartbeat-{job.task_id}")
        beats.start()
        # Past its time-out (on this clock, from the claim) the service refuses the claim's writes and recovery may
        # hand the task on: the job is superseded then, so its end is not written, and the lease as this worker counts
        # it never runs past the time-out, whatever the heartbeats say.
        timed_out = None
        if ends_at is not None:
            timed_out = threading.Timer(max(0.0, ends_at - time.monotonic()), self._time_out, args=(job,))
            timed_out.daemon = True
            timed_out.start()
        try:
            try:
                result = self.handler(job)
            except PermanentError as permanent:
                self._end(job, lambda last: self.client.fail(job.claim_id, str(permanent) or "permanent failure",
                                                             retryable=False, traceparent=job.traceparent,
                                                             progress=last))
            except Exception as failure:  # any other failure is retried after the backoff
                self._end(job, lambda last: self.client.fail(job.claim_id, f"{type(failure).__name__}: {failure}",
                                                             traceparent=job.traceparent, progress=last))
            else:
                self._end(job, lambda last: self._complete(job, result, last))
        finally:
            done.set()
            if timed_out:
                timed_out.cancel()
            with self._lock:
                self._running.pop(job.claim_id, None)
            self._slots.release()

    @staticmethod
    def _time_out(job: Job) -> None:
        if not job.superseded.is_set():
            LOG.info("task %s: its attempt timed out; stopping it", job.task_id)
            job.superseded.set()

    def _complete(self, job: Job, result: Any, last: Optional[Dict[str, Any]]) -> None:
        """The job's success; a result the service cannot store ends the task DEAD, as running it again would
        most likely give the same (and repeat its side effects)."""
        if last is not None:
            try:
                self.client.complete(job.claim_id, result, traceparent=job.traceparent, progress=last)
                return
            except (TypeError, ValueError, TaskfenceError) as refused:
                if isinstance(refused, (ClaimSuperseded, Unavailable)) or getattr(refused, "status", 0) == 429:
                    raise
                # The report or the result was refused: without the report, the answer says which.
                LOG.warning("task %s: its end with its last progress report was refused (%s); ending without it",
                            job.task_id, refused)
        try:
            self.client.complete(job.claim_id, result, traceparent=job.traceparent)
        except (TypeError, ValueError) as unwritable:  # no JSON value
            self.client.fail(job.claim_id, f"the handler succeeded, but its result cannot be stored: {unwritable}",
                             retryable=False, traceparent=job.traceparent)
        except TaskfenceError as refused:
            if isinstance(refused, (ClaimSuperseded, Unavailable)) or refused.status == 429:
                raise
            self.client.fail(job.claim_id, "the handler succeeded, but its result cannot be stored: "
                             + str(refused.problem.get("detail", refused)), retryable=False,
                             traceparent=job.traceparent)

    def _end(self, job: Job, write: Callable[[Optional[Dict[str, Any]]], Any]) -> None:
        """Writes the job's end, carrying its last progress report held back (if any), unless its claim was
        superseded; retried while the service cannot be reached, and without the report if the end with it was
        refused."""
        last = job._end_progress()
        pause = 0.2
        while not job.superseded.is_set():
            try:
                write(last)
                return
            except ClaimSuperseded as superseded:
                job.superseded.set()
                LOG.info("task %s: %s; its outcome is dropped", job.task_id, superseded.problem.get("detail"))
            except (TypeError, ValueError) as unwritable:  # only a report is written here unchecked: a result is not
                LOG.warning("task %s: its last progress report cannot be sent (%s)", job.task_id, unwritable)
                last = None
            except TaskfenceError as failed:
                if last is not None and not isinstance(failed, Unavailable) and failed.status != 429:
                    last = None  # the report may be what was refused: the end again, without it
                    continue
                if not isinstance(failed, Unavailable) and failed.status != 429:
                    LOG.error("task %s: the service refused its end (%s); its lease will run out", job.task_id, failed)
                    return
                LOG.warning("task %s: writing its end failed (%s); trying again", job.task_id, failed)
                time.sleep(failed.retry_after or pause)
                pause = min(pause * 2, 5.0)

    def _heartbeats(self, job: Job, lease: float, done: threading.Event) -> None:
        """A heartbeat every third of the lease; a 409, or the lease running out here unconfirmed, supersedes the job."""
        every = max(0.05, lease / 3)
        confirmed = time.monotonic()
        while not done.wait(every) and not job.superseded.is_set():
            sent = time.monotonic()
            try:
                self.client.heartbeat(job.claim_id, traceparent=job.traceparent)
                confirmed = sent
            except ClaimSuperseded as superseded:
                LOG.info("task %s: %s; stopping it", job.task_id, superseded.problem.get("detail"))
                job.superseded.set()
                return
            except TaskfenceError as failed:
                if failed.status == 404:  # the claim is not this key's (the key was changed): it cannot hold
                    LOG.warning("task %s: %s; stopping it", job.task_id, failed)
                    job.superseded.set()
                    return
                LOG.warning("task %s: heartbeat failed (%s)", job.task_id, failed)
                if time.monotonic() - confirmed > lease * 0.9:
                    LOG.warning("task %s: its lease ran out here unconfirmed; stopping it", job.task_id)
                    job.superseded.set()
                    return

    def _drain(self) -> None:
        end = time.monotonic() + self.drain_timeout
        while time.monotonic() < end:
            with self._lock:
                if not self._running:
                    return
            time.sleep(0.05)
        with self._lock:
            left: List[Job] = list(self._running.values())
        for job in left:
            job.superseded.set()  # its outcome is not written: the task goes back for another worker
            self._hand_back(job)

    def _hand_back(self, job: Job) -> None:
        try:
            self.client.release(job.claim_id, traceparent=job.traceparent)
            LOG.info("task %s handed back", job.task_id)
        except TaskfenceError as failed:
            LOG.warning("task %s: handing it back failed (%s); it runs again once its lease has run out",
                        job.task_id, failed)
