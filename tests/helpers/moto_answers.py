"""moto's answers with and without the local deployment's changes to it, for the tests that
compare them (``tests/integration/local``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import boto3
from moto import mock_aws
from moto.moto_api._internal import mock_random

from sitemap_updater_local.deployment.faster_moto.linear_moto import linear_moto

REGION = "us-east-1"
#: A sequence of calls on one client, returning what is compared.
Story = Callable[[Any], list[Any]]


def run(service: str, story: Story, *, changed: bool, seed: int | None = None) -> list[Any]:
    """``story`` on a fresh moto, as shipped or with the local deployment's changes
    (``changed``); ``seed``: moto's random ids seeded first, so they compare too."""
    with mock_aws():
        client = boto3.client(service, region_name=REGION)  # type: ignore[call-overload]
        if seed is not None:
            mock_random.seed(seed)
        if not changed:
            return story(client)
        with linear_moto():
            return story(client)


def same_answers(service: str, story: Story, *, seed: int | None = None) -> list[Any]:
    """The answers of ``story``, asserted equal on moto as shipped and on the changed moto."""
    plain = run(service, story, changed=False, seed=seed)
    assert run(service, story, changed=True, seed=seed) == plain
    return plain


def create_url_table(dynamodb: Any, name: str = "urls") -> None:
    """A table with the URL table's key schema (and the state table's), ``name``."""
    dynamodb.create_table(
        TableName=name,
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
