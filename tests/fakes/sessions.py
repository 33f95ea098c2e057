"""Portal sessions in memory, as hookline.adapters.dynamo.sessions.SessionRepository keeps them (by token hash)."""

from __future__ import annotations

from hookline.core.sessions import PortalSession
from tests.fakes.faults import Faults


class FakeSessionStore:
    """SessionStore: sessions by their token's hash; nothing expires by itself (DynamoDB's TTL is late too)."""

    def __init__(self) -> None:
        self.items: dict[str, PortalSession] = {}
        self.faults = Faults()

    def add(self, session: PortalSession) -> None:
        self.faults.check("add")
        self.items[session.token_hash] = session

    def find(self, token_hash: str) -> PortalSession | None:
        self.faults.check("find")
        return self.items.get(token_hash)
