"""Taskfence's Python client: submit tasks, and run a remote type's tasks with fenced claims.

Standard library only (Python 3.9+). See clients/python/README.md.
"""

from .client import ClaimSuperseded, Client, TaskfenceError, Unavailable
from .worker import Job, PermanentError, Worker

__all__ = ["Client", "TaskfenceError", "ClaimSuperseded", "Unavailable", "Worker", "Job", "PermanentError"]
