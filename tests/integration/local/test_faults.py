"""Seeded fault injection: real error responses, the same calls failing for the same seed."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from moto import mock_aws

from sitemap_updater_local.deployment import DEFAULT_TEMPLATE, LocalDeployment
from sitemap_updater_local.deployment.faults import FaultPlan
from sitemap_updater_local.deployment.stack.tables import create_template_table


def test_decisions_depend_only_on_seed_and_call() -> None:
    calls = [("dynamodb", op, n) for op in ("PutItem", "Query") for n in range(1, 400)]
    a = [FaultPlan(0.2, seed=7).decide(*c) for c in calls]
    b = [FaultPlan(0.2, seed=7).decide(*c) for c in calls]
    other = [FaultPlan(0.2, seed=8).decide(*c) for c in calls]
    assert a == b
    assert a != other
    share = sum(x is not None for x in a) / len(a)
    assert 0.15 < share < 0.25
    assert FaultPlan(0.2, seed=7, services=("s3",)).decide("dynamodb", "PutItem", 1) is None


def test_rate_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match=r"fault rate 1.5 must be between 0 and 1"):
        FaultPlan(1.5, seed=1)


@mock_aws
def test_injected_errors_are_real_service_errors() -> None:
    plan = FaultPlan(1.0, seed=3)
    session = boto3.Session(region_name="us-east-1")
    plan.install(session)
    try:
        no_retry = Config(retries={"mode": "standard", "max_attempts": 1})
        dynamodb = session.client("dynamodb", config=no_retry)
        with pytest.raises(ClientError) as ddb_error:
            dynamodb.list_tables()
        s3 = session.client("s3", config=no_retry)
        with pytest.raises(ClientError) as s3_error:
            s3.list_buckets()
        sqs = session.client("sqs")
        assert sqs.list_queues().get("QueueUrls", []) == []  # not a faulted service
    finally:
        plan.uninstall()
    ddb = ddb_error.value.response
    assert ddb["Error"]["Code"] in {
        "ThrottlingException",
        "ProvisionedThroughputExceededException",
        "InternalServerError",
    }
    assert ddb["ResponseMetadata"]["HTTPStatusCode"] in {400, 500}
    assert s3_error.value.response["Error"]["Code"] in {"SlowDown", "InternalError"}
    assert {(f.service, f.operation) for f in plan.injected} == {
        ("dynamodb", "ListTables"),
        ("s3", "ListBuckets"),
    }
    # after uninstall the same session reaches moto again
    assert session.client("dynamodb").list_tables()["TableNames"] == []


def _run_with_faults(template: Path, seed: int) -> tuple[list[tuple[str, str, int, str]], int]:
    plan = FaultPlan(0.3, seed=seed, services=("dynamodb",))
    with LocalDeployment(template, "https://www.example.com", faults=plan) as dep:
        dep.send(json.dumps({"do": "ok", "key": f"k{i}"}) for i in range(12))
        dep.drain()
        stored = len(dep.dynamodb.scan(TableName=dep.table_name)["Items"])
    return [(f.service, f.operation, f.call_number, f.code) for f in plan.injected], stored


def test_faults_in_a_deployment_are_retried_by_the_sdk_and_repeat_per_seed(
    stack_template: Path,
) -> None:
    first, stored = _run_with_faults(stack_template, seed=11)
    again, stored_again = _run_with_faults(stack_template, seed=11)
    assert first  # some calls of the function did fail
    assert first == again
    assert stored == stored_again == 12  # the SDK's retries got every write through


@mock_aws
def test_a_failed_attempt_never_reaches_the_service() -> None:
    plan = FaultPlan(1.0, seed=1, services=("dynamodb",))
    session = boto3.Session(region_name="us-east-1")
    setup = session.client("dynamodb")
    create_template_table(setup, DEFAULT_TEMPLATE, "Table", "t")
    plan.install(session)
    client = session.client("dynamodb", config=Config(retries={"max_attempts": 1}))
    with pytest.raises(ClientError):
        client.put_item(TableName="t", Item={"pk": {"S": "a"}, "sk": {"S": "b"}})
    plan.uninstall()
    assert setup.scan(TableName="t")["Items"] == []
