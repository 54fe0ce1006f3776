"""The day's budget of Search Console calls, spread over the runs left, kept in DynamoDB as
each call is made; a stop ends the property's calls for the run."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from hypothesis import given
from hypothesis import strategies as st
from moto import mock_aws

from sitemap_updater.observe.budget import BudgetLedger, RunBudget, runs_left_today, share_of_run

MIDNIGHT = 1_800_057_600  # 2027-01-15T00:00:00Z
HOUR = 3600


def test_an_hourly_run_at_midnight_spends_a_24th() -> None:
    assert runs_left_today(MIDNIGHT, HOUR) == 24
    assert share_of_run(1_500, 0, MIDNIGHT, HOUR) == 63  # ceil(1500 / 24)
    assert share_of_run(1_500, 1_490, MIDNIGHT + 23 * HOUR, HOUR) == 10  # the last run


@given(st.integers(0, 2_000), st.integers(0, 86_399), st.sampled_from([300, 900, 3600, 86_400]))
def test_runs_following_their_share_never_overspend_the_day(
    daily: int, start: int, interval: int
) -> None:
    used = 0
    for moment in range(MIDNIGHT + start, MIDNIGHT + 86_400, interval):
        share = share_of_run(daily, used, moment, interval)
        assert share >= 0
        used += share
    assert used <= daily


@pytest.fixture
def table() -> Iterator[tuple[object, str]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(  # the state table's key schema
            TableName="state",
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
        yield client, "state"


def test_what_a_run_spent_is_left_out_of_the_next_runs_share(table: tuple[object, str]) -> None:
    client, name = table
    ledger = BudgetLedger(client, name, daily=240, interval_seconds=HOUR)  # type: ignore[arg-type]
    first = ledger.open("sc-domain:example.com", MIDNIGHT)
    assert first.allowed == 10
    while first.take():
        pass
    assert first.spent == 10 and first.left == 0
    assert ledger.used("sc-domain:example.com", MIDNIGHT + HOUR) == 10
    assert ledger.used("https://www.example.de/", MIDNIGHT + HOUR) == 0  # per property
    assert ledger.used("sc-domain:example.com", MIDNIGHT + 24 * HOUR) == 0  # a new day


def test_each_call_is_recorded_as_it_is_made(table: tuple[object, str]) -> None:
    """A run that ends at any point (a timeout, a crash) has counted every call it made."""
    client, name = table
    ledger = BudgetLedger(client, name, daily=240, interval_seconds=HOUR)  # type: ignore[arg-type]
    budget = ledger.open("https://www.example.com/", MIDNIGHT)
    for made in range(1, 4):
        assert budget.take()
        assert ledger.used("https://www.example.com/", MIDNIGHT) == made


def test_a_stop_ends_the_calls_of_the_run_and_says_why() -> None:
    budget = RunBudget(10)
    assert budget.take()
    budget.stop("daily", "Quota exceeded ... per day per site")
    budget.stop("per-minute", "a later stop does not replace the first")
    assert budget.left == 0 and not budget.take()
    assert budget.report()["stopped_on"] == "daily" and budget.report()["calls"] == 1
