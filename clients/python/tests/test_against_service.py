"""The client and the worker loop against a running service (real PostgreSQL and Redis behind it).

The service's failsafe test PythonClientIT starts one and runs these with:
TASKFENCE_URL, TASKFENCE_SUBMIT_KEY (a submit or admin key), TASKFENCE_WORKER_KEY (a worker key for the remote
types TASKFENCE_TYPE and TASKFENCE_OTHER_TYPE, each used by one test only at a time) and a short lease (3 s).
"""

from __future__ import annotations

import os
import threading
import time
import unittest
import uuid
from typing import Any, Dict, List

from taskfence import ClaimSuperseded, Client, Job, PermanentError, TaskfenceError, Unavailable, Worker

URL = os.environ.get("TASKFENCE_URL", "")
TYPE = os.environ.get("TASKFENCE_TYPE", "resize")
OTHER_TYPE = os.environ.get("TASKFENCE_OTHER_TYPE", "thumbnail")


@unittest.skipUnless(URL, "TASKFENCE_URL names no service (PythonClientIT sets it)")
class AgainstTheService(unittest.TestCase):

    def setUp(self) -> None:
        self.submitter = Client(URL, os.environ["TASKFENCE_SUBMIT_KEY"])
        self.worker_client = Client(URL, os.environ["TASKFENCE_WORKER_KEY"])

    def run_worker(self, handler, types=None, **options: Any) -> Worker:
        worker = Worker(self.worker_client, types or [TYPE], handler, wait=1.0, **options)
        thread = threading.Thread(target=worker.run, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 30)
        self.addCleanup(worker.stop)
        return worker

    def test_a_worker_runs_a_task_and_its_result_is_stored(self) -> None:
        self.run_worker(lambda job: {"doubled": job.payload["n"] * 2, "token": job.fencing_token})
        task = self.submitter.submit_and_wait(TYPE, {"n": 21}, timeout=30)
        self.assertEqual("SUCCEEDED", task["status"])
        self.assertEqual({"doubled": 42, "token": 1}, task["result"])

    def test_a_dedupe_key_answers_the_task_it_made_until_that_task_starts(self) -> None:
        key = "py-" + uuid.uuid4().hex
        later = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
        first = self.submitter.submit(TYPE, {"n": 1}, run_at=later, dedupe={"key": key, "mode": "replace"})
        second = self.submitter.submit(TYPE, {"n": 2}, run_at=later, dedupe={"key": key, "mode": "replace"})
        self.assertEqual(first["id"], second["id"])
        self.assertEqual({"n": 2}, self.submitter.get(first["id"])["payload"])
        self.submitter.cancel(first["id"])

    def test_a_jobs_progress_shows_in_its_task_and_its_last_report_is_kept(self) -> None:
        seen = threading.Event()

        def handler(job: Job) -> None:
            job.progress({"done": 1, "total": 3})
            seen.wait(30)
            job.progress({"done": 2, "total": 3})
            job.progress({"done": 3, "total": 3, "message": "last"})  # within the second: held back, sent at the end
            return None

        self.run_worker(handler, types=[OTHER_TYPE])
        task_id = self.submitter.submit(OTHER_TYPE, {})["id"]
        running = self.submitter.get(task_id)
        deadline = time.monotonic() + 30
        while "progress" not in running and time.monotonic() < deadline:
            time.sleep(0.05)
            running = self.submitter.get(task_id)
        self.assertEqual({"done": 1, "total": 3}, running.get("progress"))
        self.assertEqual("PROCESSING", running["status"])
        seen.set()
        done = self.submitter.wait_for(task_id, timeout=30)
        self.assertEqual("SUCCEEDED", done["status"])
        self.assertEqual("last", done["progress"]["message"])

    def test_a_permanent_error_ends_the_task_dead_and_another_is_retried(self) -> None:
        attempts: List[int] = []

        def handler(job: Job) -> Dict[str, Any]:
            attempts.append(job.attempt)
            if job.payload.get("permanent"):
                raise PermanentError("not an image")
            if job.attempt == 1:
                raise RuntimeError("disk full")
            return {"attempt": job.attempt}

        self.run_worker(handler)
        dead = self.submitter.submit_and_wait(TYPE, {"permanent": True}, timeout=30)
        self.assertEqual("DEAD", dead["status"])
        self.assertEqual("not an image", dead["lastError"])
        retried = self.submitter.submit_and_wait(TYPE, {"permanent": False}, timeout=30)
        self.assertEqual("SUCCEEDED", retried["status"])
        self.assertEqual({"attempt": 2}, retried["result"])

    def test_a_cancel_reaches_the_handler_within_a_heartbeat_and_the_task_stays_cancelled(self) -> None:
        started = threading.Event()
        stopped = threading.Event()

        def handler(job: Job) -> Dict[str, Any]:
            started.set()
            if job.superseded.wait(30):  # a lease of 3 s: a heartbeat each second
                stopped.set()
            return {"finished": "anyway"}

        self.run_worker(handler, types=[OTHER_TYPE])
        task = self.submitter.submit(OTHER_TYPE, {})
        self.assertTrue(started.wait(30), "the worker got the task")
        self.submitter.cancel(task["id"])
        self.assertTrue(stopped.wait(5), "the handler was told within a heartbeat")
        time.sleep(1.5)  # what the handler returned is not written
        after = self.submitter.get(task["id"])
        self.assertEqual("CANCELLED", after["status"])
        self.assertIsNone(after["result"])

    def test_stopping_hands_back_what_still_runs(self) -> None:
        started = threading.Event()
        worker = Worker(self.worker_client, [OTHER_TYPE], lambda job: started.set() or time.sleep(60), wait=1.0,
                        drain_timeout=0.5)
        thread = threading.Thread(target=worker.run, daemon=True)
        thread.start()
        task = self.submitter.submit(OTHER_TYPE, {"long": True})
        self.assertTrue(started.wait(30))
        worker.stop()
        thread.join(30)
        self.assertFalse(thread.is_alive(), "run() returned after its drain")
        after = self.submitter.get(task["id"])
        self.assertIn(after["status"], ("PENDING", "ENQUEUED"), "handed back, due again")
        self.assertEqual(0, after["attempt"], "the attempt was not counted")
        # Finish it, so that no other test meets it.
        self.run_worker(lambda job: {"done": True}, types=[OTHER_TYPE])
        self.assertEqual("SUCCEEDED", self.submitter.wait_for(task["id"], 30)["status"])

    def test_a_claim_that_no_longer_holds_is_refused(self) -> None:
        task = self.submitter.submit(TYPE, {"direct": True})
        claims: List[Dict[str, Any]] = []
        end = time.monotonic() + 30
        while not claims and time.monotonic() < end:
            claims = self.worker_client.claim([TYPE], max=1, wait=5)
        self.assertEqual(task["id"], claims[0]["taskId"])
        claim_id = claims[0]["claimId"]
        self.worker_client.complete(claim_id, {"first": True})
        with self.assertRaises(ClaimSuperseded):
            self.worker_client.heartbeat(claim_id)
        with self.assertRaises(ClaimSuperseded):
            self.worker_client.complete(claim_id, {"second": True})
        self.assertEqual({"first": True}, self.submitter.get(task["id"])["result"])
        with self.assertRaises(TaskfenceError) as unknown:
            self.worker_client.heartbeat(f"{uuid.uuid4()}.1.eA")
        self.assertEqual(404, unknown.exception.status)

    def test_an_unreachable_replica_is_unavailable_and_the_next_url_is_used(self) -> None:
        client = Client(["http://127.0.0.1:9", URL], os.environ["TASKFENCE_SUBMIT_KEY"], timeout=2)
        with self.assertRaises(Unavailable):
            client.submit(TYPE, {"n": 0})
        self.assertEqual(URL.rstrip("/"), client.url)
        worker = self.run_worker(lambda job: {"ok": True})
        self.assertEqual("SUCCEEDED", client.submit_and_wait(TYPE, {"n": 1}, timeout=30)["status"])
        self.assertIsNotNone(worker)


if __name__ == "__main__":
    unittest.main()
