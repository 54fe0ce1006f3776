"""An IndexNow POST ends by its deadline, however slowly the endpoint answers: a local endpoint
on 127.0.0.1 drips a whole answer one byte at a time, each byte well within the per-read timeout."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from sitemap_updater.indexnow import AnswerKind, IndexNowClient
from tests.helpers.drip_server import DripServer, http_answer

KEY = "5b2d0c6e-indexnow-test"
SITE = "https://www.example.com"
#: a byte every 20 ms: the whole answer takes seconds, each read a fraction of any timeout here
INTERVAL = 0.02


@pytest.fixture
def endpoint() -> Iterator[DripServer]:
    with DripServer(http_answer("200 OK", b"accepted " * 20), INTERVAL) as server:
        yield server


def post(endpoint: DripServer, timeout: float, budget: float | None = None) -> tuple[float, str]:
    client = IndexNowClient(
        endpoint.url + "/indexnow", KEY, site_url=SITE, public_base_url=SITE, timeout=timeout
    )
    started = time.monotonic()
    answer = client.post([f"{SITE}/a"], time.time(), budget=budget)
    elapsed = time.monotonic() - started
    assert answer.outcome is AnswerKind.RETRY and answer.status is None  # kept for a later run
    return elapsed, answer.detail


def test_a_post_ends_at_its_deadline_while_the_answer_still_drips(endpoint: DripServer) -> None:
    elapsed, detail = post(endpoint, timeout=0.5)
    assert "deadline of 0.5 s" in detail  # reported as a timeout
    assert endpoint.bytes_sent > 1  # the answer had begun: no single read waited too long
    assert elapsed < endpoint.drip_seconds / 2


def test_the_runs_time_budget_ends_a_post_sooner(endpoint: DripServer) -> None:
    elapsed, detail = post(endpoint, timeout=60.0, budget=0.3)
    assert "deadline of 0.3 s" in detail
    assert elapsed < endpoint.drip_seconds / 2


def test_no_time_left_sends_nothing(endpoint: DripServer) -> None:
    _, detail = post(endpoint, timeout=5.0, budget=0.0)
    assert "deadline" in detail
    assert endpoint.bytes_sent == 0
