"""The Search Console client, google-auth and all, against the local stand-in: the token is
signed and checked, sitemaps are submitted and read (an index's files with ``sitemapIndex=``),
URLs inspected, each failure Google documents comes out as the right error (a quota's with its
window and wait), and no error's text holds the access token."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sitemap_updater.engines.exceptions import (
    CredentialsRefused,
    EngineError,
    EngineUnavailable,
    QuotaExhausted,
)
from sitemap_updater.engines.search_console import SearchConsole
from sitemap_updater_local.standins.crawls import CrawlSchedule
from sitemap_updater_local.standins.keys import ServiceAccountKey, make_key
from sitemap_updater_local.standins.loopback import Failure
from sitemap_updater_local.standins.search_console import (
    SearchConsoleStandIn,
    indexed,
    not_indexed,
)
from tests.integration.engines.conftest import FEED, SITE

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def test_a_submitted_sitemap_is_pending_until_google_downloads_it(
    client: SearchConsole, console: SearchConsoleStandIn
) -> None:
    client.submit(SITE, FEED)
    (pending,) = client.sitemaps(SITE)
    assert pending.path == FEED and pending.is_pending and pending.last_downloaded is None
    assert pending.last_submitted is not None

    console.downloaded(SITE, FEED, when=NOW, submitted={"web": 120, "image": 7}, warnings=2)
    (status,) = client.sitemaps(SITE)
    assert not status.is_pending
    assert status.last_downloaded == NOW
    assert (status.errors, status.warnings) == (0, 2)
    assert status.submitted == {"web": 120, "image": 7}


def test_submitting_twice_keeps_one_sitemap(client: SearchConsole) -> None:
    client.submit(SITE, FEED)
    client.submit(SITE, FEED)
    client.submit(SITE, SITE + "sitemap-news.xml")
    assert sorted(s.path for s in client.sitemaps(SITE)) == [FEED, SITE + "sitemap-news.xml"]


def test_no_sitemap_submitted_lists_none(client: SearchConsole) -> None:
    assert client.sitemaps(SITE) == []


def test_the_files_of_an_unknown_index_are_a_plain_error(client: SearchConsole) -> None:
    with pytest.raises(EngineError) as raised:
        client.sitemaps(SITE, SITE + "never-submitted.xml")
    assert type(raised.value) is EngineError and raised.value.status == 404
    assert "not found" in str(raised.value)


def test_an_inspection_reads_the_index_status(
    client: SearchConsole, console: SearchConsoleStandIn
) -> None:
    url = SITE + "articles/1"
    console.inspections[url] = indexed(
        last_crawl=NOW - timedelta(hours=3),
        google_canonical=SITE + "articles/one",
        user_canonical=url,
        sitemaps=[FEED],
    )
    result = client.inspect(SITE, url)
    assert result.indexed and result.verdict == "PASS"
    assert result.coverage_state == "Submitted and indexed"
    assert result.indexing_state == "INDEXING_ALLOWED"
    assert result.google_canonical == SITE + "articles/one" and result.user_canonical == url
    assert result.last_crawl_time == NOW - timedelta(hours=3)
    assert result.sitemaps == (FEED,)


def test_an_unknown_url_is_not_indexed(
    client: SearchConsole, console: SearchConsoleStandIn
) -> None:
    console.inspections[SITE + "b"] = not_indexed()
    unknown, crawled = client.inspect(SITE, SITE + "a"), client.inspect(SITE, SITE + "b")
    assert not unknown.indexed and unknown.coverage_state == "URL is unknown to Google"
    assert unknown.last_crawl_time is None and unknown.google_canonical is None
    assert not crawled.indexed and crawled.coverage_state == "Crawled - currently not indexed"


def test_one_token_serves_many_calls(client: SearchConsole, console: SearchConsoleStandIn) -> None:
    client.submit(SITE, FEED)
    client.sitemaps(SITE)
    client.inspect(SITE, SITE + "a")
    assert len(console.requests_to("/token")) == 1


def test_a_token_the_api_no_longer_takes_is_renewed_once(
    client: SearchConsole, console: SearchConsoleStandIn
) -> None:
    client.sitemaps(SITE)
    console.revoke_tokens()
    assert client.sitemaps(SITE) == []
    assert len(console.requests_to("/token")) == 2


def test_the_token_request_is_a_signed_jwt_bearer_grant(
    client: SearchConsole, console: SearchConsoleStandIn
) -> None:
    client.sitemaps(SITE)
    (token_request,) = console.requests_to("/token")
    form = token_request.body.decode()
    assert "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer" in form
    api_request = console.requests_to("/webmasters/")[0]
    assert api_request.headers["Authorization"].startswith("Bearer ya29.stand-in-")


def test_a_key_the_token_endpoint_does_not_know_is_refused(
    console: SearchConsoleStandIn, key: ServiceAccountKey
) -> None:
    forged = make_key(console.token_uri, key.client_email, fresh=True)  # another private key
    client = SearchConsole(forged.info, api_root=console.url, deadline_seconds=5.0)
    with pytest.raises(CredentialsRefused) as raised:
        client.sitemaps(SITE)
    assert "Invalid JWT Signature" in str(raised.value)
    assert forged.info["private_key"].splitlines()[1] not in str(raised.value)
    assert console.requests_to("/webmasters/") == []


def test_a_property_the_account_may_not_use_is_refused(client: SearchConsole) -> None:
    with pytest.raises(CredentialsRefused) as raised:
        client.submit("https://other.example/", "https://other.example/sitemap.xml")
    assert raised.value.status == 403 and "sufficient permission" in raised.value.reason


def test_an_unreadable_key_is_refused_without_its_text(console: SearchConsoleStandIn) -> None:
    info = dict(console.new_key().info, private_key="-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n")
    with pytest.raises(CredentialsRefused) as raised:
        SearchConsole(info, api_root=console.url)
    assert "c2VjcmV0" not in str(raised.value)


@pytest.mark.parametrize(
    ("failure", "kind", "status"),
    [
        (Failure.QUOTA, QuotaExhausted, 429),
        (Failure.UNAVAILABLE, EngineUnavailable, 503),
        (Failure.ERROR, EngineError, 400),
        (Failure.DROP, EngineUnavailable, None),
    ],
)
def test_each_api_failure_is_sorted(
    client: SearchConsole,
    console: SearchConsoleStandIn,
    failure: Failure,
    kind: type[EngineError],
    status: int | None,
) -> None:
    console.fail(failure)
    with pytest.raises(EngineError) as raised:
        client.inspect(SITE, SITE + "a")
    assert type(raised.value) is kind and raised.value.status == status
    assert raised.value.operation == "urlInspection.index.inspect"
    assert client.inspect(SITE, SITE + "a").verdict == "NEUTRAL"  # the next run goes through


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (Failure.QUOTA, QuotaExhausted),
        (Failure.UNAVAILABLE, EngineUnavailable),
        (Failure.ERROR, CredentialsRefused),
        (Failure.DROP, EngineUnavailable),
    ],
)
def test_a_failing_token_endpoint_is_asked_once(
    client: SearchConsole,
    console: SearchConsoleStandIn,
    failure: Failure,
    kind: type[EngineError],
) -> None:
    console.fail(failure, channel="token")
    with pytest.raises(kind):
        client.sitemaps(SITE)
    assert len(console.requests_to("/token")) == 1  # no retry with sleeps inside google-auth
    assert console.requests_to("/webmasters/") == []


def test_the_inspection_quota_per_property_is_enforced(key: ServiceAccountKey) -> None:
    moments = iter(float(t) for t in range(1_000_000, 1_000_100))
    with SearchConsoleStandIn(properties={SITE}, clock=lambda: next(moments), per_day=3) as console:
        client = SearchConsole(console.new_key().info, api_root=console.url)
        for n in range(3):
            client.inspect(SITE, f"{SITE}{n}")
        with pytest.raises(QuotaExhausted) as raised:
            client.inspect(SITE, SITE + "3")
    assert raised.value.status == 429 and "Quota exceeded" in raised.value.reason


def test_an_api_root_that_would_carry_the_token_in_clear_is_refused(
    key: ServiceAccountKey,
) -> None:
    with pytest.raises(EngineError) as raised:
        SearchConsole(key.info, api_root="http://searchconsole.example.com")
    assert "api_root" in str(raised.value) and "https" in str(raised.value)


def test_the_files_of_an_index_are_listed_with_sitemap_index_and_unknown_to_get(
    client: SearchConsole, console: SearchConsoleStandIn
) -> None:
    client.submit(SITE, FEED)
    files = {SITE + "sitemap-a-1.xml.gz": 120, SITE + "sitemap-b-1.xml.gz": 7}
    console.read_index(SITE, FEED, when=NOW, files=files)
    listed = client.sitemaps(SITE, FEED)
    assert {s.path: s.submitted["web"] for s in listed} == files
    assert all(s.last_downloaded == NOW and not s.is_pending for s in listed)
    (request,) = [r for r in console.requests if "sitemapIndex" in r.query]
    assert request.query["sitemapIndex"] == [FEED]
    # the property's own list holds the index alone: its files are known through it only
    assert [s.path for s in client.sitemaps(SITE)] == [FEED]


def test_a_per_minute_refusal_names_its_window_and_its_wait(
    client: SearchConsole, console: SearchConsoleStandIn
) -> None:
    console.retry_after = 7
    console.fail(Failure.RATE)
    with pytest.raises(QuotaExhausted) as raised:
        client.inspect(SITE, SITE + "a")
    assert (raised.value.window, raised.value.retry_after) == ("per-minute", 7.0)
    assert client.inspect(SITE, SITE + "a").verdict == "NEUTRAL"


def test_the_day_s_refusal_names_its_window(key: ServiceAccountKey) -> None:
    moments = iter(float(t) for t in range(1_000_000, 1_000_100))
    with SearchConsoleStandIn(properties={SITE}, clock=lambda: next(moments), per_day=1) as console:
        client = SearchConsole(console.new_key().info, api_root=console.url)
        client.inspect(SITE, SITE + "0")
        with pytest.raises(QuotaExhausted) as raised:
            client.inspect(SITE, SITE + "1")
    assert raised.value.window == "daily" and (raised.value.retry_after or 0) > 3600


def test_the_crawls_of_a_known_schedule_answer_the_inspections(
    client: SearchConsole, console: SearchConsoleStandIn
) -> None:
    console.crawls = CrawlSchedule(median_hours=6, seed=3)
    url = SITE + "changed"
    console.crawls.changed(url, NOW)
    delay = console.crawls.first_crawl_delay(url, NOW.timestamp())
    console.clock = lambda: NOW.timestamp() + delay - 1
    assert client.inspect(SITE, url).coverage_state == "Discovered - currently not indexed"
    console.clock = lambda: NOW.timestamp() + delay + 1
    found = client.inspect(SITE, url)
    assert found.indexed and found.last_crawl_time is not None
    assert abs(found.last_crawl_time.timestamp() - (NOW.timestamp() + delay)) < 0.01


def test_no_error_text_holds_the_access_token(
    client: SearchConsole, console: SearchConsoleStandIn
) -> None:
    client.sitemaps(SITE)
    (token,) = console.tokens
    echoed = f"Bearer {token} was sent; token {token.upper()}"
    console.fail(Failure.ERROR)
    console.error_message = echoed
    with pytest.raises(EngineError) as raised:
        client.inspect(SITE, SITE + "a")
    assert token not in str(raised.value) and token.upper() not in str(raised.value)
    assert "[redacted]" in str(raised.value)
