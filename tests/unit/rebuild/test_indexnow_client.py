"""The IndexNow client against a local endpoint on 127.0.0.1 that plays the API: success, 429
with Retry-After, 503, 422, a slow answer and a dropped connection."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from sitemap_updater.bounded_http import retry_after_seconds
from sitemap_updater.config import ConfigError, RebuildConfig
from sitemap_updater.indexnow import (
    MAX_URLS_PER_POST,
    AnswerKind,
    IndexNowClient,
    IndexNowConfigError,
    check_key,
    key_file_name,
    request_body,
)
from sitemap_updater.rebuild.outputs.indexnow import fair_trim
from tests.helpers.indexnow_endpoint import Reply, ScriptedEndpoint

SITE = "https://www.example.com"
KEY = "0123abcd-KEY-9"
NOW = 1_800_000_000.0


@pytest.fixture
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint() as running:
        yield running


def client(endpoint: ScriptedEndpoint, timeout: float = 5.0) -> IndexNowClient:
    return IndexNowClient(endpoint.url, KEY, site_url=SITE, public_base_url=SITE, timeout=timeout)


def test_a_post_carries_the_protocol_body(endpoint: ScriptedEndpoint) -> None:
    urls = [f"{SITE}/a", f"{SITE}/b?x=1&y=é"]
    answer = client(endpoint).post(urls, NOW)
    assert (answer.outcome, answer.status) == (AnswerKind.ACCEPTED, 200)
    [received] = endpoint.requests
    assert received.path == "/indexnow"
    assert received.content_type == "application/json; charset=utf-8"
    assert received.body == {
        "host": "www.example.com",
        "key": KEY,
        "keyLocation": f"{SITE}/sitemap-indexnow-{KEY}.txt",
        "urlList": urls,
    }


def test_202_is_success(endpoint: ScriptedEndpoint) -> None:
    endpoint.script(Reply(202))
    assert client(endpoint).post([f"{SITE}/a"], NOW).outcome is AnswerKind.ACCEPTED


def test_429_is_retried_after_the_time_it_names(endpoint: ScriptedEndpoint) -> None:
    endpoint.script(Reply(429, {"Retry-After": "120"}, "slow down"))
    answer = client(endpoint).post([f"{SITE}/a"], NOW)
    assert (answer.outcome, answer.status, answer.retry_after) == (AnswerKind.RETRY, 429, 120.0)
    assert answer.detail == "slow down"


def test_503_is_retried(endpoint: ScriptedEndpoint) -> None:
    endpoint.script(Reply(503, body="maintenance"))
    answer = client(endpoint).post([f"{SITE}/a"], NOW)
    assert (answer.outcome, answer.status, answer.retry_after) == (AnswerKind.RETRY, 503, None)


@pytest.mark.parametrize("status", [400, 403, 422])
def test_a_refusal_is_not_retried_and_keeps_the_answer(
    endpoint: ScriptedEndpoint, status: int
) -> None:
    endpoint.script(Reply(status, body='{"message": "URLs do not belong to the host"}'))
    answer = client(endpoint).post([f"{SITE}/a"], NOW)
    assert (answer.outcome, answer.status) == (AnswerKind.REJECTED, status)
    assert "do not belong to the host" in answer.detail


def test_a_slow_answer_times_out_and_is_retried(endpoint: ScriptedEndpoint) -> None:
    endpoint.script(Reply(200, hold=True))  # held until released (at most 30 s)
    try:
        answer = client(endpoint, timeout=0.3).post([f"{SITE}/a"], NOW)
    finally:
        endpoint.release()
    assert (answer.outcome, answer.status) == (AnswerKind.RETRY, None)
    assert "TimeoutError" in answer.detail and "deadline of 0.3 s" in answer.detail


def test_a_dropped_connection_is_retried(endpoint: ScriptedEndpoint) -> None:
    endpoint.script(Reply(drop=True))
    answer = client(endpoint).post([f"{SITE}/a"], NOW)
    assert (answer.outcome, answer.status) == (AnswerKind.RETRY, None)
    assert answer.detail.startswith("no answer: ")
    assert len(endpoint.requests) == 1


def test_nothing_listening_is_retried() -> None:
    with ScriptedEndpoint() as gone:
        url = gone.url
    answer = IndexNowClient(url, KEY, site_url=SITE, public_base_url=SITE).post([SITE + "/"], NOW)
    assert (answer.outcome, answer.status) == (AnswerKind.RETRY, None)


def test_retry_after_as_an_http_date() -> None:
    later = format_datetime(datetime.fromtimestamp(NOW + 90, UTC), usegmt=True)
    assert retry_after_seconds(later, NOW) == 90.0
    assert retry_after_seconds("not a date", NOW) is None
    assert retry_after_seconds(None, NOW) is None


def test_one_post_holds_at_most_10000_urls() -> None:
    urls = [f"{SITE}/{i}" for i in range(MAX_URLS_PER_POST + 1)]
    assert b'"urlList"' in request_body("www.example.com", KEY, "x", urls[:-1])
    with pytest.raises(ValueError, match="1 to 10000 URLs, not 10001"):
        request_body("www.example.com", KEY, "x", urls)


@pytest.mark.parametrize("key", ["short7c", "x" * 129, "has space1", "under_score", "ключключ"])
def test_a_key_outside_the_rule_is_named_with_the_rule(key: str) -> None:
    with pytest.raises(IndexNowConfigError) as caught:
        check_key(key)
    message = str(caught.value)
    assert "INDEXNOW_KEY" in message and repr(key) in message
    assert "8 to 128 characters of a-z, A-Z, 0-9 and -" in message


def test_the_key_file_is_served_by_the_sitemap_path() -> None:
    assert key_file_name(KEY) == f"sitemap-indexnow-{KEY}.txt"
    assert check_key("a" * 8) == "a" * 8 and check_key("Z-9" * 42 + "ab") == "Z-9" * 42 + "ab"


def test_the_key_file_must_be_on_the_site_host() -> None:
    with pytest.raises(IndexNowConfigError) as caught:
        IndexNowClient(
            "https://api.indexnow.org/indexnow",
            KEY,
            site_url=SITE,
            public_base_url="https://d111111abcdef8.cloudfront.net",
        )
    assert caught.value.field == "PUBLIC_BASE_URL"
    assert "www.example.com" in caught.value.rule


def test_config_reads_and_checks_the_indexnow_settings() -> None:
    base = {"TABLE_NAME": "t", "SITE_URL": SITE, "BUCKET_NAME": "b", "TABLE_STREAM_ARN": "arn"}
    off = RebuildConfig.from_env(base)
    assert (off.indexnow_key, off.indexnow_endpoint) == ("", "https://api.indexnow.org/indexnow")
    on = RebuildConfig.from_env(
        {**base, "INDEXNOW_KEY": KEY, "INDEXNOW_ENDPOINT": "http://127.0.0.1:9/x"}
    )
    assert (on.indexnow_key, on.indexnow_endpoint) == (KEY, "http://127.0.0.1:9/x")
    with pytest.raises(ConfigError, match="INDEXNOW_KEY='bad' is not valid: must be 8 to 128"):
        RebuildConfig.from_env({**base, "INDEXNOW_KEY": "bad"})
    with pytest.raises(ConfigError, match="INDEXNOW_ENDPOINT='file:///etc/passwd' is not valid"):
        RebuildConfig.from_env({**base, "INDEXNOW_ENDPOINT": "file:///etc/passwd"})


def _flood(section: str, n: int) -> list[str]:
    return [f"https://www.example.com/{section}/{i}" for i in range(n)]


def test_a_full_pending_set_drops_the_newest_of_the_largest_section() -> None:
    waiting = _flood("news", 30) + _flood("shop", 10)  # in the set first, oldest first
    flood = _flood("spam", 200)
    urls = dict.fromkeys(waiting + flood)

    dropped = fair_trim(urls, 100, 10**9)

    assert dropped == 140 and len(urls) == 100
    assert set(waiting) <= urls.keys()  # the flood pushed out nothing that was waiting
    assert list(urls)[40:] == flood[:60]  # the flood keeps its oldest, in order


def test_sections_over_their_share_are_cut_to_an_equal_share() -> None:
    urls = dict.fromkeys(_flood("a", 50) + _flood("b", 40) + _flood("c", 5))
    fair_trim(urls, 45, 10**9)
    sections = [url.split("/")[3] for url in urls]
    assert (sections.count("a"), sections.count("b"), sections.count("c")) == (20, 20, 5)


def test_the_byte_bound_trims_the_set_too() -> None:
    long_urls = [f"https://www.example.com/big/{'x' * 1000}{i}" for i in range(10)]
    urls = dict.fromkeys(_flood("small", 10) + long_urls)
    dropped = fair_trim(urls, 1000, 6000)
    assert dropped > 0 and sum(len(u) + 3 for u in urls) <= 6000
    assert set(_flood("small", 10)) <= urls.keys()


@pytest.mark.parametrize(
    "endpoint",
    ["http://api.indexnow.org/indexnow", "http://10.0.0.5/indexnow", "ftp://api.indexnow.org/x"],
)
def test_the_endpoint_must_be_https_and_the_error_names_the_rule(endpoint: str) -> None:
    base = {"TABLE_NAME": "t", "SITE_URL": SITE, "BUCKET_NAME": "b", "TABLE_STREAM_ARN": "arn"}
    with pytest.raises(ConfigError) as caught:
        RebuildConfig.from_env({**base, "INDEXNOW_KEY": KEY, "INDEXNOW_ENDPOINT": endpoint})
    assert f"INDEXNOW_ENDPOINT={endpoint!r} is not valid" in str(caught.value)
    assert "must be an https:// URL" in str(caught.value)
