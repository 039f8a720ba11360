"""A remote worker that claims one task and then only heartbeats, until its claim is refused; then it tries to
complete it anyway. RemoteWorkersIT pauses it (SIGSTOP) past its lease and wakes it after another worker has taken
the task over. Prints what the service answered, one line each. Settings: TASKFENCE_URL, TASKFENCE_WORKER_KEY,
TASKFENCE_TYPE; the client from clients/python (PYTHONPATH)."""

import os
import sys
import time

from taskfence import ClaimSuperseded, Client

client = Client(os.environ["TASKFENCE_URL"], os.environ["TASKFENCE_WORKER_KEY"])
claims = []
while not claims:
    claims = client.claim([os.environ["TASKFENCE_TYPE"]], max=1, wait=5, worker="stalling")
claim = claims[0]
print(f"claimed {claim['taskId']} attempt {claim['attempt']} token {claim['fencingToken']}", flush=True)
while True:
    time.sleep(claim["leaseMillis"] / 3000)
    try:
        client.heartbeat(claim["claimId"])
        print("heartbeat ok", flush=True)
    except ClaimSuperseded as refused:
        print(f"heartbeat {refused.status}: {refused.problem.get('detail')}", flush=True)
        break
try:
    client.complete(claim["claimId"], {"by": "stalling"})
    print("complete ok", flush=True)
    sys.exit(1)
except ClaimSuperseded as refused:
    print(f"complete {refused.status}: {refused.problem.get('detail')}", flush=True)
