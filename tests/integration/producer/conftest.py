"""Fixtures of the producer tests: an SQS queue on moto."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import boto3
import pytest
from moto import mock_aws

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient


@pytest.fixture
def sqs(monkeypatch: pytest.MonkeyPatch) -> Iterator[SQSClient]:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        yield boto3.client("sqs", region_name="us-east-1")


@pytest.fixture
def queue_url(sqs: SQSClient) -> str:
    return sqs.create_queue(QueueName="ingest")["QueueUrl"]
