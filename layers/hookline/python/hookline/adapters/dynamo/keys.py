"""The data table's key schema: every item's keys, and the one index's, are built here and nowhere else.

One table, string keys `pk`/`sk`, TTL on `expires_at`. The tenant is part of
every key the API reads, so no query can reach another tenant's items.

    item        pk                      sk                      builder
    API key     KEY#<sha256(key)>       KEY                     api_key
    Session     PS#<sha256(token)>      PS                      portal_session
    Portal      PORTAL#<tenant>         SETTINGS                portal_settings
    Event types TYPES#<tenant>          TYPES                   event_types
    Sent to     TYPES#<tenant>          CUS#<uid>               customer_event_types: the types sent to one customer
    Broadcast   TYPES#<tenant>          BROADCAST               broadcast_event_types: the types broadcast to every customer
    Versions    CAT#<tenant>            VERSIONS                versions (catalog_partition)
    Event type  CAT#<tenant>            TYPE#<name>             event_type (catalog_partition, TYPE_PREFIX)
    Version use VUSE#<tenant>#<version> D#<yyyy-mm-dd>          version_usage (version_usage_partition)
    Customer    C#<tenant>              CUS#<uid>               customer (customer_partition, CUSTOMER_PREFIX)
    Endpoint    T#<tenant>              EP#<ep_id>              endpoint (tenant_partition, ENDPOINT_PREFIX)
    Own indexed OWN#<tenant>            INDEXED                 own_endpoints_indexed: all of the tenant's own endpoints are in the customer-endpoints index
    Owned       OWN#<tenant>            CNT#<uid>               owned_endpoints: how many endpoints one customer has (`CNT#`: the tenant's own)
    Event       E#<tenant>#<evt_id>     EVENT                   event (event_partition)
    Delivery    D#<tenant>#<mark>#<n>   <dlv_id>                delivery (delivery_log_partition, endpoint_log_partitions): in its endpoint's log
    (earlier)   E#<tenant>#<evt_id>     DLV#<dlv_id>            delivery(..., LAYOUT_EVENT_KEYED): an event the previous release accepted
    Attempt     E#<tenant>#<evt_id>     DLV#<dlv_id>#A#<nnnn>   attempt
    Breaker     BRK#<tenant>#<ep_id>    BRK                     breaker
    Limiter     LIM#<tenant>#<ep_id>    LIM                     limiter
    Token       TOK#<tenant>#<ep_id>    TOK                     auth_token: an OAuth2 endpoint's access token, sealed, shared by the fleet
    Replay      RPL#<tenant>#<rpl_id>   RPL                     replay
    Job         JOB#<tenant>#<job_id>   JOB                     job
    Running job RJOB                    <tenant>#<job_id>       running_job (RUNNING_JOBS): a job not yet done or cancelled
    Unqueued    UNQ#<minute>#<shard>    <tenant>#<token>        unqueued_note (unqueued_partition): a request's events until they are queued
    Sweep       SWEEP                   CHECKPOINT              sweep_checkpoint
    Retry wait  WAIT#<minute>#<shard>   <tenant>#<evt_id>#<dlv_id>#g<n>#a<n>  retry_wait (wait_partition): a task waiting in Step Functions, by due minute
    Wait sweep  SWEEP                   WAITS                   wait_checkpoint
    Statistics  STAT#<tenant>#<ep_id>   H#<yyyy-mm-ddThh>       stats (stats_partition, stats_sort)
    Mailbox     POLL#<tenant>#<ep_id>   <position>              mailbox (mailbox_partition): a polling endpoint's webhook (hookline.core.polling)
    Poll token  PT#<pt_id>              PT                      poll_token: by the token's id; its secret's hash, never the secret

Index `endpoint-deliveries` (INDEX): GSI_PK `gsi1pk` = `EPD#<tenant>#<ep_id>`,
GSI_SK `gsi1sk` = `<status>#<created_at>#<dlv_id>`, all attributes. It is
sparse: a delivery carries these keys (index_keys) only while its status is one
of INDEXED_STATUSES: failed and paused (what a customer acts on), and pending
once an attempt was recorded (a delivery waiting for its retry). A first
success never writes it.

A delivery is kept in its endpoint's delivery log: `<mark>` is the endpoint's
mark (hookline.core.ids.endpoint_mark, 16 characters of a hash of its id), `<n>`
one of DELIVERY_SHARDS partitions chosen by the delivery id (delivery_shard),
so one endpoint's deliveries never heat one partition. A delivery id begins
with its creation time, so each partition is in creation order, and the
endpoint's log, every status, is read by merging them: the item a delivery's
first recorded attempt writes anyway is its log entry, and no index is written
for it. The id also carries the mark, masked by its event, so the event and
delivery ids alone give its key. The previous release kept deliveries in their
event's partition: an event item without `layout` (LAYOUT_EVENT_KEYED) says
its deliveries are there, until they expire.

Index `endpoint-log` (LOG_INDEX), keys only, read only: GSI4_PK `gsi4pk` =
`EPL#<tenant>#<ep_id>#<shard>`, GSI4_SK `gsi4sk` = `<created_at>#<dlv_id>`.
The previous release wrote these keys (log_keys) on every delivery, an index
write each; this one writes them only on that release's deliveries, and reads
the index for their place in the endpoint's log, after the log's own. Once the
last of them expires (the retention after this release is deployed), a later
release drops the index.

Index `customer-endpoints` (CUSTOMER_INDEX): GSI2_PK `gsi2pk` =
`CE#<tenant>#<uid>` for a customer's endpoint, `CE#<tenant>#` for the tenant's
own; GSI2_SK `gsi2sk` = `<ep_id>`, all attributes. Only endpoint items carry
these keys (owner_keys), every endpoint does: it lists one owner's endpoints,
so an event for a customer, or for the tenant's own, reads that owner's
endpoints and no other's. A uid is never empty and has no '#', so the text
after the last '#' names the owner without ambiguity. An endpoint a release
before the index stored has no keys until it is saved: the tenant's own are
read from the table until the tenant's mark (own_endpoints_indexed) is written
by the read that gave such endpoints their keys.

Index `endpoint-versions` (VERSION_INDEX), keys only: GSI3_PK `gsi3pk` =
`EV#<tenant>#<version>`, GSI3_SK `gsi3sk` = `<ep_id>`. Every endpoint item
carries these keys (version_keys): it counts and lists the endpoints pinned to
a version, what a producer checks before turning one off.

Access patterns (numbered as in docs/architecture.md), by key:

    api_key              1 authorize a key (GetItem); add, revoke
    portal_settings      37 read / replace a tenant's portal settings (GetItem / PutItem)
    event_types          38 remember a type the tenant sent (UpdateItem ADD), read them (GetItem)
    customer_event_types, broadcast_event_types
                         59 remember a type sent to a customer / broadcast (UpdateItem ADD), a session's types (BatchGetItem of both)
    portal_session       30 issue a portal session (PutItem), 31 authorize a session token (GetItem, then the customer's 25)
    customer             25 create / replace / read / delete a customer, 35 revoke its portal sessions; customer_partition: 26 list a tenant's customers (Query)
    endpoint             2 create / read / change / delete an endpoint; 7, 19 (with breaker and limiter, BatchGetItem)
    tenant_partition     3 list a tenant's endpoints (Query, begins_with ENDPOINT_PREFIX); 33 a broadcast step's page of them
    owner_partition      3b one owner's endpoints: fan-out, the ?customer= list, a customer's stats and deletion (Query CUSTOMER_INDEX)
    own_endpoints_indexed  63 whether the tenant's own are read from the index (GetItem, once per process and tenant); written once (PutItem)
    event                4 idempotency check, 5 store the event, 11 read bodies (BatchGetItem); 32 store a broadcast, 33 advance its fan-out
    delivery             6 store, 10 claim, 13 record status, 17 park, 22 restart; 33 a broadcast's delivery (cond. put);
                         18 an event's planned deliveries, 34 a page of a broadcast's (BatchGetItem); 40 one delivery (GetItem)
    attempt              12 record the attempt
    event_partition      18 an event with its attempts (Query); a delivery's key as prefix: 40 its attempts (Query);
                         + DELIVERY_PREFIX: 34 a page of the previous release's broadcast's deliveries (Query)
    auth_token           69 an OAuth2 endpoint's token: read when the process has none (GetItem), kept once fetched (PutItem conditional on a later refresh)
    breaker, limiter     7 load, 8 grant, 9 probe, 14 transition, 15 slow down, 16 release
    stats                20 add a batch's counters; stats_partition + stats_sort: 21 read a window (Query)
    replay               23 a replay's page counted (UpdateItem conditional on its job's step), 24 replay progress
    unqueued_note        51 note a request's events before storing them (PutItem), 52 drop the note once queued (DeleteItem);
                         unqueued_partition: 53 the sweeper's notes of one minute and shard (Query)
    retry_wait           56 note a retry before its wait in Step Functions starts (PutItem), 57 drop the notes of the tasks
                         a batch received out of their waits (BatchWriteItem); wait_partition: 58 the sweeper's overdue notes
                         of one due minute and shard (Query, a page of 100 at a time), each dropped (BatchWriteItem)
    job                  48 start a job (conditional PutItem), 49 read it (GetItem), 50 advance it (UpdateItem conditional on its step)
    running_job          54 mark a job running (PutItem) and drop the mark when it ends (DeleteItem); RUNNING_JOBS: 55 the sweeper lists them (Query)
    versions, event_type 41 the tenant's versions and the event's type, read with every accepted request (BatchGetItem); 42 change them (PutItem, versions conditional on its revision); catalog_partition: 43 list the event types (Query)
    version_usage        44 add a batch's deliveries per version (UpdateItem ADD); version_usage_partition: 45 a version's last 7 days (Query)
    version_partition    46 the endpoints pinned to a version (Query VERSION_INDEX, keys only)
    index_partition      17 requeue the paused, 23 a replay's page, the deliveries route (Query INDEX), 39 an endpoint's backlog (COUNT), 47 its failures by creation hour (Query)
    endpoint_log_partitions  62 an endpoint's delivery log, every status (Query each partition, newest first);
    log_partition        62 then the previous release's deliveries (Query LOG_INDEX, each shard, then BatchGetItem)
"""

from __future__ import annotations

import zlib
from typing import Literal

from hookline.core import ids
from hookline.core.models import INDEXED_STATUSES, LAYOUT_ENDPOINT_KEYED, LAYOUT_EVENT_KEYED

Key = dict[str, str]

PK = "pk"
SK = "sk"
TTL = "expires_at"  # events, deliveries, attempts, replays, statistics and portal sessions expire; endpoints and API keys never do

INDEX = "endpoint-deliveries"
GSI_PK = "gsi1pk"
GSI_SK = "gsi1sk"
CUSTOMER_INDEX = "customer-endpoints"
GSI2_PK = "gsi2pk"
GSI2_SK = "gsi2sk"
# Each index's (partition, sort) key attributes, by name: a cursor into an index holds these beside the table's keys.
VERSION_INDEX = "endpoint-versions"
GSI3_PK = "gsi3pk"
GSI3_SK = "gsi3sk"
LOG_INDEX = "endpoint-log"
GSI4_PK = "gsi4pk"
GSI4_SK = "gsi4sk"
INDEX_KEYS = {INDEX: (GSI_PK, GSI_SK), CUSTOMER_INDEX: (GSI2_PK, GSI2_SK), VERSION_INDEX: (GSI3_PK, GSI3_SK), LOG_INDEX: (GSI4_PK, GSI4_SK)}

ENDPOINT_PREFIX = "EP#"
CUSTOMER_PREFIX = "CUS#"
EVENT_SK = "EVENT"
DELIVERY_PREFIX = "DLV#"  # an event's deliveries and their attempts, in its partition (a broadcast's are paged by it)
_ATTEMPT_INFIX = "#A#"


def _key(pk: str, sk: str) -> Key:
    return {PK: pk, SK: sk}


# -- customers ---------------------------------------------------------------------------------------
# Apart from the tenant's endpoints (T#), so listing customers reads no endpoint and
# the endpoint partition's reads never pass over customers. A uid has no '#'.


def customer_partition(tenant: str) -> str:
    return f"C#{tenant}"


def customer(tenant: str, uid: str) -> Key:
    return _key(customer_partition(tenant), f"{CUSTOMER_PREFIX}{uid}")


# -- endpoints and their state ------------------------------------------------------------------


def tenant_partition(tenant: str) -> str:
    return f"T#{tenant}"


def endpoint(tenant: str, endpoint_id: str) -> Key:
    return _key(tenant_partition(tenant), f"{ENDPOINT_PREFIX}{endpoint_id}")


def owner_partition(tenant: str, customer: str | None) -> str:
    """The customer-endpoints index partition of one customer's endpoints, or (None) of the tenant's own."""
    return f"CE#{tenant}#{customer or ''}"


def owner_keys(tenant: str, customer: str | None, endpoint_id: str) -> dict[str, str]:
    """The customer-endpoints index attributes every endpoint item carries."""
    return {GSI2_PK: owner_partition(tenant, customer), GSI2_SK: endpoint_id}


def own_endpoints_indexed(tenant: str) -> Key:
    """The mark that every endpoint of the tenant's own carries its customer-endpoints index keys (and from when the
    index may be read for them): written once, by the first read of them, once it gave those without keys theirs."""
    return _key(f"OWN#{tenant}", "INDEXED")


def owned_endpoints(tenant: str, customer: str | None) -> Key:
    """How many endpoints one owner has (a customer, or None: the tenant's own), kept by the transactions that create
    and delete an endpoint, so creation can refuse one past the owner's cap (Settings.max_endpoints_per_owner)."""
    return _key(f"OWN#{tenant}", f"CNT#{customer or ''}")


def breaker(tenant: str, endpoint_id: str) -> Key:
    return _key(f"BRK#{tenant}#{endpoint_id}", "BRK")


def limiter(tenant: str, endpoint_id: str) -> Key:
    return _key(f"LIM#{tenant}#{endpoint_id}", "LIM")


def auth_token(tenant: str, endpoint_id: str) -> Key:
    """An OAuth2 endpoint's cached access token (hookline.adapters.dynamo.tokens)."""
    return _key(f"TOK#{tenant}#{endpoint_id}", "TOK")


def line_head(tenant: str, endpoint_id: str) -> Key:
    """An ordered endpoint's line head: the delivery its line waits behind, while one does (hookline.core.models.LineHead)."""
    return _key(f"LINE#{tenant}#{endpoint_id}", "LINE")


def email_mark(tenant: str, endpoint_id: str, transition: str) -> Key:
    """The marker of one endpoint transition emailed to its customer (sk: e.g. `disabled#<updated_at>`, `recovered#v<version>`)."""
    return _key(f"MAIL#{tenant}#{endpoint_id}", transition)


def stats_partition(tenant: str, endpoint_id: str) -> str:
    return f"STAT#{tenant}#{endpoint_id}"


def stats_sort(hour: str) -> str:
    return f"H#{hour}"


def stats(tenant: str, endpoint_id: str, hour: str) -> Key:
    return _key(stats_partition(tenant, endpoint_id), stats_sort(hour))


# -- an event's item collection -------------------------------------------------------------------


EVENT_PARTITION_PREFIX = "E#"


def event_partition(tenant: str, event_id: str) -> str:
    return f"{EVENT_PARTITION_PREFIX}{tenant}#{event_id}"


def event(tenant: str, event_id: str) -> Key:
    return _key(event_partition(tenant, event_id), EVENT_SK)


def delivery(tenant: str, event_id: str, delivery_id: str, layout: int = LAYOUT_ENDPOINT_KEYED) -> Key:
    """Where a delivery is kept: in its endpoint's log (the id names the endpoint's mark, hookline.core.ids), or, for one
    of an event an earlier release accepted (LAYOUT_EVENT_KEYED), in the event's own partition."""
    if layout == LAYOUT_EVENT_KEYED:
        return _key(event_partition(tenant, event_id), f"{DELIVERY_PREFIX}{delivery_id}")
    mark = ids.endpoint_mark_of(tenant, event_id, delivery_id) if ids.is_id(delivery_id, ids.DELIVERY) else _NO_MARK
    return _key(delivery_log_partition(tenant, mark, delivery_shard(delivery_id)), delivery_id)


# Where a string that is no delivery id is kept and looked for (a malformed task's finds nothing there): outside
# every endpoint's log, as no mark is made of '-'.
_NO_MARK = "-" * 16


def layout_of(pk: str) -> int:
    """The layout a delivery item was found in, by its partition key."""
    return LAYOUT_EVENT_KEYED if pk.startswith(EVENT_PARTITION_PREFIX) else LAYOUT_ENDPOINT_KEYED


def attempt(tenant: str, event_id: str, delivery_id: str, number: int) -> Key:
    return _key(event_partition(tenant, event_id), f"{DELIVERY_PREFIX}{delivery_id}{_ATTEMPT_INFIX}{number:04d}")


def collection_member(sk: str) -> tuple[Literal["event", "delivery", "attempt", ""], str]:
    """What an item of an event's collection is, by its sort key, with the delivery id it belongs to ('' for the event)."""
    if sk == EVENT_SK:
        return "event", ""
    if not sk.startswith(DELIVERY_PREFIX):
        return "", ""
    delivery_id, _, number = sk.removeprefix(DELIVERY_PREFIX).partition(_ATTEMPT_INFIX)
    return ("attempt" if number else "delivery"), delivery_id


# -- the endpoint-deliveries index -------------------------------------------------------------------


def index_partition(tenant: str, endpoint_id: str) -> str:
    return f"EPD#{tenant}#{endpoint_id}"


def index_sort(status: str, moment: str, delivery_id: str = "") -> str:
    """The index's sort key, or (without a delivery id) a bound for a range of creation times."""
    return f"{status}#{moment}#{delivery_id}" if delivery_id else f"{status}#{moment}"


def index_keys(tenant: str, endpoint_id: str, status: str, created_at: str, delivery_id: str) -> dict[str, str]:
    """The index attributes a delivery carries in `status`: none unless it is failed, paused or pending."""
    if status not in INDEXED_STATUSES:
        return {}
    return {GSI_PK: index_partition(tenant, endpoint_id), GSI_SK: index_sort(status, created_at, delivery_id)}


# -- an endpoint's delivery log ----------------------------------------------------------------------

DELIVERY_SHARDS = 8  # an endpoint's log partitions: at 5,000 deliveries a second to one endpoint, about 625 writes a second each (a partition takes 1,000)


def delivery_shard(delivery_id: str) -> int:
    """The log partition a delivery is kept in: fixed by its id alone."""
    return zlib.crc32(delivery_id.encode()) % DELIVERY_SHARDS


def delivery_log_partition(tenant: str, mark: str, shard: int) -> str:
    """One of an endpoint's delivery log partitions, by the endpoint's mark (ids.endpoint_mark)."""
    return f"D#{tenant}#{mark}#{shard}"


def endpoint_log_partitions(tenant: str, endpoint_id: str) -> list[str]:
    """The endpoint's delivery log: every partition its deliveries are kept in."""
    mark = ids.endpoint_mark(endpoint_id)
    return [delivery_log_partition(tenant, mark, shard) for shard in range(DELIVERY_SHARDS)]


# -- the endpoint-log index (read only: the previous release's deliveries) -----------------------------

LOG_SHARDS = 8  # the index's partitions per endpoint


def log_shard(delivery_id: str) -> int:
    """The log partition a delivery's entry is in: fixed by its id alone."""
    return zlib.crc32(delivery_id.encode()) % LOG_SHARDS


def log_owner(tenant: str, endpoint_id: str) -> str:
    """What a cursor into the endpoint's delivery log is tied to (as the previous release tied it: its index's first partition)."""
    return log_partition(tenant, endpoint_id, 0)


def log_partition(tenant: str, endpoint_id: str, shard: int) -> str:
    return f"EPL#{tenant}#{endpoint_id}#{shard}"


def log_sort(created_at: str, delivery_id: str = "") -> str:
    """The log's sort key, or (without a delivery id) a bound for a range of creation times."""
    return f"{created_at}#{delivery_id}" if delivery_id else created_at


def log_keys(tenant: str, endpoint_id: str, created_at: str, delivery_id: str) -> dict[str, str]:
    """The endpoint-log index's attributes: the previous release wrote them on every delivery, this one on that release's only."""
    return {GSI4_PK: log_partition(tenant, endpoint_id, log_shard(delivery_id)), GSI4_SK: log_sort(created_at, delivery_id)}


# -- replays and API keys ------------------------------------------------------------------------------


def replay(tenant: str, replay_id: str) -> Key:
    return _key(f"RPL#{tenant}#{replay_id}", "RPL")


def job(tenant: str, job_id: str) -> Key:
    """A bulk job: its kind, cursor and counters (hookline.core.jobs)."""
    return _key(f"JOB#{tenant}#{job_id}", "JOB")


def mailbox_partition(tenant: str, endpoint_id: str) -> str:
    """A polling endpoint's mailbox: its webhooks, by position (hookline.core.polling.position)."""
    return f"POLL#{tenant}#{endpoint_id}"


def mailbox(tenant: str, endpoint_id: str, position: str) -> Key:
    return _key(mailbox_partition(tenant, endpoint_id), position)


def poll_token(token_id: str) -> Key:
    """A poll token's item, by its id (which the token carries): its secret is stored only as a hash."""
    return _key(f"PT#{token_id}", "PT")


def api_key(digest: str) -> Key:
    """An API key's item, by the SHA-256 of the key: the key itself is never stored."""
    return _key(f"KEY#{digest}", "KEY")


def portal_session(digest: str) -> Key:
    """A portal session's item, by the SHA-256 of its token: the token itself is never stored."""
    return _key(f"PS#{digest}", "PS")


def portal_settings(tenant: str) -> Key:
    return _key(f"PORTAL#{tenant}", "SETTINGS")


def event_types(tenant: str) -> Key:
    """The set of event types the tenant has sent (for the portal's pick-list)."""
    return _key(f"TYPES#{tenant}", "TYPES")


def customer_event_types(tenant: str, uid: str) -> Key:
    """The set of event types sent to one customer: the types its portal session lists beside its endpoints' filters."""
    return _key(f"TYPES#{tenant}", f"{CUSTOMER_PREFIX}{uid}")


def broadcast_event_types(tenant: str) -> Key:
    """The set of event types the tenant has broadcast: sent to every customer, so every portal session lists them."""
    return _key(f"TYPES#{tenant}", "BROADCAST")


def catalog_partition(tenant: str) -> str:
    return f"CAT#{tenant}"


TYPE_PREFIX = "TYPE#"
VERSIONS_SK = "VERSIONS"


def versions(tenant: str) -> Key:
    """The tenant's payload versions and its default: one item."""
    return _key(catalog_partition(tenant), VERSIONS_SK)


def event_type(tenant: str, name: str) -> Key:
    """One event type of the catalog: its description and, per version, its schema and transform."""
    return _key(catalog_partition(tenant), f"{TYPE_PREFIX}{name}")


def version_usage_partition(tenant: str, version: str) -> str:
    return f"VUSE#{tenant}#{version}"


def version_usage(tenant: str, version: str, day: str) -> Key:
    """A version's deliveries on one day (yyyy-mm-dd) and the last one's time."""
    return _key(version_usage_partition(tenant, version), f"D#{day}")


def version_partition(tenant: str, version: str) -> str:
    return f"EV#{tenant}#{version}"


def version_keys(tenant: str, version: str, endpoint_id: str) -> dict[str, str]:
    """An endpoint's keys in the endpoint-versions index."""
    return {GSI3_PK: version_partition(tenant, version), GSI3_SK: endpoint_id}


UNQUEUED_SHARDS = 8  # a minute's notes are spread over this many partitions, so ingest never heats one


def unqueued_partition(minute: str, shard: int) -> str:
    """One minute's (yyyy-mm-ddThh:mm) notes of requests whose events were not all queued yet, in one of UNQUEUED_SHARDS."""
    return f"UNQ#{minute}#{shard}"


def unqueued_note(minute: str, shard: int, tenant: str, token: str) -> Key:
    return _key(unqueued_partition(minute, shard), f"{tenant}#{token}")


def sweep_checkpoint() -> Key:
    """The last minute the sweeper finished."""
    return _key("SWEEP", "CHECKPOINT")


WAIT_SHARDS = 8  # a due minute's notes are spread over this many partitions, so a burst of long retries never heats one


def wait_partition(minute: str, shard: int) -> str:
    """The notes of the retries due in one minute (yyyy-mm-ddThh:mm) that wait in Step Functions, in one of WAIT_SHARDS."""
    return f"WAIT#{minute}#{shard}"


def retry_wait(minute: str, shard: int, tenant: str, event_id: str, delivery_id: str, generation: int, attempt: int) -> Key:
    """One waiting retry's note: one per attempt and generation of a delivery (a second wait of it in the same minute is the same note)."""
    return _key(wait_partition(minute, shard), f"{tenant}#{event_id}#{delivery_id}#g{generation}#a{attempt}")


def wait_checkpoint() -> Key:
    """The last due minute whose overdue notes the sweeper finished."""
    return _key("SWEEP", "WAITS")


RUNNING_JOBS = "RJOB"  # one partition: jobs are few at a time (a re-enable, a deletion, a broadcast each)


def running_job(tenant: str, job_id: str) -> Key:
    """The mark of a job still running, which the sweeper lists to resume one whose chain of steps was lost."""
    return _key(RUNNING_JOBS, f"{tenant}#{job_id}")
