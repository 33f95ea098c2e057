"""The authorizer's composition root: the API-key repository and the session authenticator, built once per process.

Apart from `container`, which imports every service and adapter (the delivery path, the API's models), so that the
authorizer's cold start imports only what answering a key or a token needs; `container` builds its own stores of
sessions and customers here too, so each is made in one place.
"""

from __future__ import annotations

from functools import lru_cache

from hookline.adapters import aws
from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.adapters.dynamo.customers import CustomerRepository
from hookline.adapters.dynamo.sessions import SessionRepository
from hookline.adapters.system import utcnow
from hookline.core.settings import Settings
from hookline.services.authentication import SessionAuthenticator
from hookline.wiring import topology
from hookline.wiring.settings import get_settings


def customer_store(settings: Settings) -> CustomerRepository:
    return CustomerRepository(aws.dynamodb_table(settings.table_name))


def session_store(settings: Settings) -> SessionRepository:
    return SessionRepository(aws.dynamodb_table(settings.table_name), topology.TABLE.ttl_attribute)


@lru_cache(maxsize=1)
def api_keys() -> ApiKeyRepository:
    return ApiKeyRepository(aws.dynamodb_table(get_settings().table_name))


@lru_cache(maxsize=1)
def session_authenticator() -> SessionAuthenticator:
    settings = get_settings()
    return SessionAuthenticator(session_store(settings), customer_store(settings), utcnow)


def reset() -> None:
    """Forget what was built (tests, local runner restarts; `container.reset` calls it)."""
    api_keys.cache_clear()
    session_authenticator.cache_clear()
