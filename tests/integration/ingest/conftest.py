"""Fixtures of the ingest integration tests: a moto table + DLQ and the real handler."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto import mock_aws

from tests.integration.ingest.harness import BASE_ENV, IngestStack, make_stack


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[IngestStack]:
    for name, value in BASE_ENV.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        yield make_stack()
