"""Customer email in memory: the mailer, the transition markers and the paused count of
hookline.adapters.ses and hookline.adapters.dynamo.email_marks."""

from __future__ import annotations

from dataclasses import dataclass, field

from hookline.core.emails import Email, Links, Waiting
from hookline.core.errors import DependencyFailed
from hookline.services.delivery.emails import CustomerEmails
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.customers import FakeCustomerStore

SENDER = "alerts@hookline.example.com"


@dataclass(frozen=True)
class SentEmail:
    sender: str
    to: str
    email: Email


class FakeMailer:
    """Mailer: keeps what it sent; `refuse` makes every send raise, as the SES adapter does for a rejected message."""

    def __init__(self) -> None:
        self.sent: list[SentEmail] = []
        self.refuse = False

    def send(self, sender: str, to: str, email: Email) -> str:
        if self.refuse:
            raise DependencyFailed("Email address is not verified.", cause="MessageRejected")
        self.sent.append(SentEmail(sender, to, email))
        return f"msg-{len(self.sent)}"


class FakeEmailMarks:
    """TransitionMarks and WaitingCounter: a marker is put once (atomically, as the conditional PutItem);
    `paused_counts` stands in for the endpoint-deliveries index."""

    def __init__(self) -> None:
        self.marks: set[tuple[str, str, str]] = set()
        self.paused_counts: dict[tuple[str, str], int] = {}
        self._lock = new_lock()

    @atomic
    def mark(self, tenant: str, endpoint_id: str, transition: str) -> bool:
        key = (tenant, endpoint_id, transition)
        if key in self.marks:
            return False
        self.marks.add(key)
        return True

    @atomic
    def unmark(self, tenant: str, endpoint_id: str, transition: str) -> None:
        self.marks.discard((tenant, endpoint_id, transition))

    def paused(self, tenant: str, endpoint_id: str, bound: int) -> Waiting:
        count = self.paused_counts.get((tenant, endpoint_id), 0)
        return Waiting(min(count, bound), more=count > bound)


@dataclass
class EmailRig:
    """The customer emails' fakes; `failures` counts what the EmailFailed metric would. The outcomes go to the
    endpoint store a delivery rig wires in (tests.fakes.delivery.delivery_rig)."""

    customers: FakeCustomerStore = field(default_factory=FakeCustomerStore)
    mailer: FakeMailer = field(default_factory=FakeMailer)
    marks: FakeEmailMarks = field(default_factory=FakeEmailMarks)
    failures: list[int] = field(default_factory=list)

    def emails(self, sender: str = SENDER, portal_base: str = "") -> CustomerEmails:
        return CustomerEmails(self.customers, self.mailer, self.marks, self.marks, sender, Links(portal_base), count_failure=lambda: self.failures.append(1))
