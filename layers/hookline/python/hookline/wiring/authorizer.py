"""The authorizer's composition root: the API-key repository and the session authenticator, built once per process.

Apart from `container`, which imports every service and adapter (the delivery path, the API's models), so that the
authorizer's cold start imports only what answering a key or a token needs; `container` builds its own stores of
sessions and customers here too, so each is made in one place. The authorizer's own repositories read through
`ItemLookup` (hookline.adapters.dynamo.lookup), on botocore's client: its first request imports no boto3, and so
not boto3's resource layer.
"""

from __future__ import annotations

from functools import lru_cache

from hookline.adapters import aws
from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.adapters.dynamo.customers import CustomerRepository
from hookline.adapters.dynamo.lookup import ItemLookup
from hookline.adapters.dynamo.poll_tokens import PollTokenRepository
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


def _lookup(settings: Settings) -> ItemLookup:
    return ItemLookup(aws.dynamodb_client(), settings.table_name)


@lru_cache(maxsize=1)
def api_keys() -> ApiKeyRepository:
    """The authorizer's key lookup (`find`, eventually consistent as before); it writes nothing."""
    return ApiKeyRepository(_lookup(get_settings()))


@lru_cache(maxsize=1)
def session_authenticator() -> SessionAuthenticator:
    """The authorizer's session check: the session's item, then its customer's, both read as the API's Table reads them."""
    settings = get_settings()
    lookup = _lookup(settings)
    return SessionAuthenticator(SessionRepository(lookup, topology.TABLE.ttl_attribute), CustomerRepository(lookup), utcnow)


@lru_cache(maxsize=1)
def poll_tokens() -> PollTokenRepository:
    """The authorizer's poll-token lookup (`find`); it writes nothing."""
    return PollTokenRepository(_lookup(get_settings()))


def reset() -> None:
    """Forget what was built (tests, local runner restarts; `container.reset` calls it)."""
    api_keys.cache_clear()
    session_authenticator.cache_clear()
    poll_tokens.cache_clear()
