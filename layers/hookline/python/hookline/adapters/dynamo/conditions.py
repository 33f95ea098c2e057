"""boto3's DynamoDB conditions, `Key(...)` and `Attr(...)`, imported when a condition is first built.

Importing anything under `boto3` imports boto3's session, botocore's client machinery and its documentation
modules: about half a second of a cold start. The repositories name conditions at module level, so they import
them from here, and boto3 is imported by the first request that builds one (which also makes the client).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from boto3.dynamodb.conditions import Attr as AttrType
    from boto3.dynamodb.conditions import Key as KeyType


def Key(name: str) -> KeyType:  # noqa: N802 - boto3's name, so a repository reads as with boto3's own
    from boto3.dynamodb import conditions

    return conditions.Key(name)


def Attr(name: str) -> AttrType:  # noqa: N802 - boto3's name, as Key
    from boto3.dynamodb import conditions

    return conditions.Attr(name)
