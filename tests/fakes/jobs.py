"""Bulk jobs in memory, as hookline.adapters.dynamo.jobs.JobRepository keeps them."""

from __future__ import annotations

from hookline.core.jobs import Job
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults


class FakeJobStore:
    """JobStore: `create` refuses an id that exists; `advance` replaces a job only while it is at the step read and running."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], Job] = {}
        self.marks: set[tuple[str, str]] = set()  # the jobs marked running
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def create(self, job: Job, expires_at: int) -> bool:
        self.faults.check("create")
        if (job.tenant, job.id) in self.items:
            return False
        self.items[(job.tenant, job.id)] = job
        self.marks.add((job.tenant, job.id))
        return True

    def running(self) -> list[tuple[str, str]]:
        return sorted(self.marks)

    def forget_running(self, tenant: str, job_id: str) -> None:
        self.marks.discard((tenant, job_id))

    def get(self, tenant: str, job_id: str) -> Job | None:
        self.faults.check("get")
        return self.items.get((tenant, job_id))

    @atomic
    def advance(self, current: Job, advanced: Job) -> bool:
        self.faults.check("advance")
        stored = self.items.get((current.tenant, current.id))
        if stored is None or stored.step != current.step or stored.status != "running":
            return False
        self.items[(current.tenant, current.id)] = advanced
        if advanced.status != "running":
            self.marks.discard((current.tenant, current.id))
        return True
