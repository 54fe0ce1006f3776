"""Fixtures of the producer tests: an SQS queue on moto."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import boto3
import pytest
from moto import mock_aws

from tests.conftest import FAKE_AWS_ENVIRONMENT

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient


@pytest.fixture
def sqs(monkeypatch: pytest.MonkeyPatch) -> Iterator[SQSClient]:
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        yield boto3.client("sqs", region_name="us-east-1")


@pytest.fixture
def queue_url(sqs: SQSClient) -> str:
    return sqs.create_queue(QueueName="ingest")["QueueUrl"]
