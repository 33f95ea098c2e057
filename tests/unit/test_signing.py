"""Standard Webhooks signatures: the spec's known answer and the official receiver."""

from __future__ import annotations

from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook

from hookline.core.signing import generate_secret, sign, signature_header
from hookline.core.webhook import webhook_headers

# The example from the Standard Webhooks specification.
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SPEC_TIMESTAMP = 1614265330
SPEC_BODY = b'{"test": 2432232314}'
SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_known_answer_from_the_spec() -> None:
    assert sign(SPEC_SECRET, SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY) == SPEC_SIGNATURE


def test_official_library_signs_the_same() -> None:
    secret = generate_secret()
    moment = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    expected = Webhook(secret).sign("evt_1", moment, '{"a":1}')
    assert sign(secret, "evt_1", int(moment.timestamp()), b'{"a":1}') == expected


def test_headers_verify_with_the_official_receiver() -> None:
    secret = generate_secret()
    body = b'{"id":"evt_x","type":"a.b","timestamp":"t","data":{}}'
    now = int(datetime.now(UTC).timestamp())
    headers = webhook_headers("evt_x", now, body, [secret])
    assert Webhook(secret).verify(body, headers) == {"id": "evt_x", "type": "a.b", "timestamp": "t", "data": {}}


def test_several_secrets_give_space_separated_signatures() -> None:
    old, new = generate_secret(), generate_secret()
    header = signature_header([old, new], "evt_1", 1, b"{}")
    assert header.split(" ") == [sign(old, "evt_1", 1, b"{}"), sign(new, "evt_1", 1, b"{}")]


def test_secrets_are_whsec_and_random() -> None:
    a, b = generate_secret(), generate_secret()
    assert a.startswith("whsec_")
    assert a != b
