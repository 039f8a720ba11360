"""The HTTP calls of Taskfence's REST API (docs/DESIGN.md, "REST API" and "Remote workers")."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional, Sequence, Union

TERMINAL = ("SUCCEEDED", "DEAD", "CANCELLED")


class TaskfenceError(Exception):
    """The service refused a request: `status` is the HTTP status, `problem` its problem+json body, `retry_after`
    the seconds its Retry-After header asked to wait (429, 503), if it sent one."""

    def __init__(self, status: int, problem: Dict[str, Any], retry_after: Optional[float] = None):
        super().__init__(f"{status} {problem.get('title', '')}: {problem.get('detail', '')}".strip())
        self.status = status
        self.problem = problem
        self.retry_after = retry_after


class ClaimSuperseded(TaskfenceError):
    """409 on a claim: it no longer holds its task (cancelled, finished, or taken over). Stop; write nothing more."""


class Unavailable(TaskfenceError):
    """The service could not be reached, or answered that it cannot serve now (5xx): try again later."""


class Client:
    """Calls the service at `url` with the API key `key` (None: authentication off).

    `url` may name several replicas (a list, or one string separated by commas): a call that cannot reach one, or
    that it answers with a 5xx, moves the client on to the next for its following calls.
    """

    def __init__(self, url: Union[str, Sequence[str]], key: Optional[str], timeout: float = 30.0):
        urls = url.split(",") if isinstance(url, str) else list(url)
        self.urls = [each.strip().rstrip("/") for each in urls if each.strip()]
        if not self.urls:
            raise ValueError("no URL of the service")
        self._next = 0
        self.key = key
        self.timeout = timeout

    @property
    def url(self) -> str:
        """The replica the next call goes to."""
        return self.urls[self._next % len(self.urls)]

    # Tasks

    def submit(self, type: str, payload: Dict[str, Any], *, max_attempts: Optional[int] = None,
               priority: Optional[int] = None, run_at: Optional[str] = None, deadline: Optional[str] = None,
               concurrency_key: Optional[str] = None, idempotency_key: Optional[str] = None,
               traceparent: Optional[str] = None, attempt_timeout: Optional[str] = None,
               dedupe: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """Submits one task; answers the task (the one stored before, for a repeated idempotency key). With
        `traceparent` (W3C Trace Context: the caller's span), a tracing service runs the task in the caller's trace.
        `attempt_timeout` ("30s", "500ms") is the task's `timeout`: how long each attempt may take, capped at its
        type's; the task's view shows the one that applies as `timeout`. `dedupe` ({"key": ..., "mode": "ignore" |
        "replace" | "debounce", "period": "5s", "maxWait": "1m"}): while the task the key made has not started, the
        answer is that task, ignored, replaced or debounced, and no task is made."""
        body: Dict[str, Any] = {"type": type, "payload": payload}
        for name, value in (("maxAttempts", max_attempts), ("priority", priority), ("runAt", run_at),
                            ("deadline", deadline), ("concurrencyKey", concurrency_key),
                            ("timeout", attempt_timeout), ("dedupe", dedupe)):
            if value is not None:
                body[name] = value
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        if traceparent:
            headers["traceparent"] = traceparent
        return self._call("POST", "/api/v1/tasks", body, headers=headers)

    def get(self, task_id: str, wait: Optional[float] = None) -> Dict[str, Any]:
        """The task; with `wait` (seconds, at most 60), once it has ended or the wait is over, whichever is first."""
        path = "/api/v1/tasks/" + urllib.parse.quote(task_id, safe="")
        if not wait:
            return self._call("GET", path)
        return self._call("GET", f"{path}?wait={int(min(wait, 60) * 1000)}ms", timeout=min(wait, 60) + self.timeout)

    def cancel(self, task_id: str) -> Dict[str, Any]:
        """Cancels the task (its worker is told at its next heartbeat); answers it, CANCELLED."""
        return self._call("POST", "/api/v1/tasks/" + urllib.parse.quote(task_id, safe="") + "/cancel")

    def submit_and_wait(self, type: str, payload: Dict[str, Any], timeout: float = 60.0,
                        **options: Any) -> Dict[str, Any]:
        """Submits a task and answers it once it has ended (SUCCEEDED, DEAD or CANCELLED), or raises TimeoutError."""
        task = self.submit(type, payload, **options)
        return self.wait_for(task["id"], timeout)

    def wait_for(self, task_id: str, timeout: float = 60.0) -> Dict[str, Any]:
        """The task once it has ended; raises TimeoutError if it has not within `timeout` seconds. Each read waits on
        the service for the end (GET ?wait=), which answers as soon as the task ends, on whichever replica."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            task = self.get(task_id, wait=max(0.001, min(left, 60.0)) if left > 0 else None)
            if task["status"] in TERMINAL:
                return task
            if time.monotonic() >= end:
                raise TimeoutError(f"task {task_id} is {task['status']} after {timeout} s")

    # The worker API

    def claim(self, types: Sequence[str], max: int = 1, wait: float = 20.0,
              worker: Optional[str] = None) -> List[Dict[str, Any]]:
        """Up to `max` tasks of `types`, each claimed for this worker; waits up to `wait` seconds for a first one."""
        body: Dict[str, Any] = {"types": list(types), "max": max, "wait": f"{int(wait * 1000)}ms"}
        if worker:
            body["worker"] = worker
        return self._call("POST", "/api/v1/claims", body, timeout=wait + self.timeout)["claims"]

    # Each call about a claim may carry the claim's `traceparent` (from its answer), so that a tracing service
    # records the call in the task's trace.

    def heartbeat(self, claim_id: str, traceparent: Optional[str] = None) -> str:
        """Extends the claim's lease; answers its new end. Raises ClaimSuperseded once it no longer holds."""
        return self._call("POST", self._claim(claim_id, "heartbeat"), headers=_traced(traceparent))["leaseUntil"]

    def progress(self, claim_id: str, progress: Dict[str, Any], traceparent: Optional[str] = None) -> None:
        """Reports the claim's progress, a JSON object of at most 4 KiB (e.g. {"done": 40, "total": 100}); the task
        shows the latest within a second. Raises ClaimSuperseded once the claim no longer holds."""
        if not isinstance(progress, dict):
            raise TypeError(f"progress must be a dict (a JSON object), not {type(progress).__name__}")
        self._call("POST", self._claim(claim_id, "progress"), {"progress": progress}, headers=_traced(traceparent))

    def complete(self, claim_id: str, result: Any = None, traceparent: Optional[str] = None,
                 progress: Optional[Dict[str, Any]] = None) -> None:
        """Ends the claim with the task's result (JSON), after its last progress report if given. Raises
        ClaimSuperseded once it no longer holds."""
        body: Dict[str, Any] = {"result": result}
        if progress is not None:
            body["progress"] = progress
        self._call("POST", self._claim(claim_id, "complete"), body, headers=_traced(traceparent))

    def fail(self, claim_id: str, error: str, retryable: bool = True, retry_after: Optional[float] = None,
             traceparent: Optional[str] = None, progress: Optional[Dict[str, Any]] = None) -> str:
        """Ends the claim with a failure, after its last progress report if given; answers FAILED (retried) or DEAD.
        Raises ClaimSuperseded once it no longer holds."""
        body: Dict[str, Any] = {"error": error[:10_000] or "failed", "retryable": retryable}
        if progress is not None:
            body["progress"] = progress
        if retry_after is not None:
            body["retryAfter"] = f"{int(retry_after * 1000)}ms"
        return self._call("POST", self._claim(claim_id, "fail"), body, headers=_traced(traceparent))["status"]

    def release(self, claim_id: str, traceparent: Optional[str] = None) -> str:
        """Hands the task back unfinished, its attempt not counted (PENDING). Raises ClaimSuperseded once it no longer holds."""
        return self._call("POST", self._claim(claim_id, "release"), headers=_traced(traceparent))["status"]

    @staticmethod
    def _claim(claim_id: str, action: str) -> str:
        return "/api/v1/claims/" + urllib.parse.quote(claim_id, safe="") + "/" + action

    def _call(self, method: str, path: str, body: Any = None, headers: Optional[Dict[str, str]] = None,
              timeout: Optional[float] = None) -> Dict[str, Any]:
        # NaN and infinities are no JSON: refused here (ValueError), as any value json cannot write (TypeError).
        data = None if body is None else json.dumps(body, allow_nan=False).encode("utf-8")
        base = self.url
        request = urllib.request.Request(base + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.key:
            request.add_header("Authorization", "Bearer " + self.key)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as answer:
                text = answer.read()
                return json.loads(text) if text else {}
        except urllib.error.HTTPError as refused:
            problem = _problem(refused)
            retry_after = _seconds(refused.headers.get("Retry-After"))
            if refused.code == 409 and path.startswith("/api/v1/claims/"):
                raise ClaimSuperseded(refused.code, problem) from None
            if refused.code >= 500:
                self._move_on(base)
                raise Unavailable(refused.code, problem, retry_after) from None
            raise TaskfenceError(refused.code, problem, retry_after) from None
        except (urllib.error.URLError, OSError) as unreachable:
            self._move_on(base)
            raise Unavailable(0, {"title": "Unreachable", "detail": f"{base}: {unreachable}"}) from None

    def _move_on(self, failed: str) -> None:
        """The next calls go to the next replica, unless another thread moved on from this one already."""
        if self.url == failed:
            self._next += 1


def _traced(traceparent: Optional[str]) -> Dict[str, str]:
    return {"traceparent": traceparent} if traceparent else {}


def _problem(refused: urllib.error.HTTPError) -> Dict[str, Any]:
    try:
        problem = json.loads(refused.read() or b"{}")
        return problem if isinstance(problem, dict) else {"detail": str(problem)}
    except ValueError:
        return {"detail": refused.reason}


def _seconds(header: Optional[str]) -> Optional[float]:
    try:
        return float(header) if header else None
    except ValueError:
        return None
