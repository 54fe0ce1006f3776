"""The Bing Webmaster client against the local stand-in: the documented requests (SubmitFeed,
GetFeeds, GetFeedDetails), each ApiErrorCode sorted, and the API key in no error text, in any
case."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sitemap_updater.engines.bing import BingWebmaster
from sitemap_updater.engines.exceptions import (
    CredentialsRefused,
    EngineError,
    EngineUnavailable,
    QuotaExhausted,
)
from sitemap_updater_local.standins.bing import BingStandIn
from sitemap_updater_local.standins.loopback import Failure
from tests.integration.engines.conftest import BING_KEY, FEED, SITE


def client(bing: BingStandIn, key: str = BING_KEY) -> BingWebmaster:
    return BingWebmaster(key, api_root=bing.api_root, deadline_seconds=5.0)


def test_a_feed_is_submitted_as_documented(bing: BingStandIn) -> None:
    client(bing).submit_feed(SITE, FEED)
    assert bing.feeds == [(SITE, FEED)]
    (request,) = bing.requests
    assert request.method == "POST" and request.path.endswith("/SubmitFeed")
    assert request.headers["Content-Type"] == "application/json; charset=utf-8"
    assert request.json() == {"siteUrl": SITE, "feedUrl": FEED}


def test_a_wrong_key_is_refused_and_never_repeated(bing: BingStandIn) -> None:
    wrong = "ffffeeeeddddccccbbbbaaaa99998888"
    with pytest.raises(CredentialsRefused) as raised:
        client(bing, wrong).submit_feed(SITE, FEED)
    assert "InvalidApiKey" in str(raised.value) and raised.value.status == 400
    assert wrong not in str(raised.value) and wrong not in repr(raised.value.args)


def test_a_site_the_account_has_not_verified_is_refused(bing: BingStandIn) -> None:
    with pytest.raises(CredentialsRefused) as raised:
        client(bing).submit_feed("https://other.example/", "https://other.example/sitemap.xml")
    assert "NotAuthorized" in raised.value.reason


def test_a_feed_off_the_site_is_a_plain_error(bing: BingStandIn) -> None:
    with pytest.raises(EngineError) as raised:
        client(bing).submit_feed(SITE, "https://other.example/sitemap.xml")
    assert type(raised.value) is EngineError and "InvalidUrl" in raised.value.reason


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (Failure.QUOTA, QuotaExhausted),
        (Failure.UNAVAILABLE, EngineUnavailable),
        (Failure.DROP, EngineUnavailable),
        (Failure.ERROR, EngineError),
    ],
)
def test_each_failure_is_sorted(
    bing: BingStandIn, failure: Failure, kind: type[EngineError]
) -> None:
    bing.fail(failure)
    with pytest.raises(EngineError) as raised:
        client(bing).submit_feed(SITE, FEED)
    assert type(raised.value) is kind
    assert BING_KEY not in str(raised.value)
    client(bing).submit_feed(SITE, FEED)  # the next run goes through
    assert bing.feeds == [(SITE, FEED)]


def test_no_answer_names_the_url_without_the_key() -> None:
    with BingStandIn(keys={BING_KEY}) as bing:
        api_root = bing.api_root
    with pytest.raises(EngineUnavailable) as raised:  # the stand-in has stopped: refused
        BingWebmaster(BING_KEY, api_root=api_root, deadline_seconds=2.0).submit_feed(SITE, FEED)
    assert raised.value.status is None and BING_KEY not in str(raised.value)


def test_the_key_travels_over_https_only() -> None:
    with pytest.raises(EngineError) as raised:
        BingWebmaster(BING_KEY, api_root="http://ssl.bing.com/webmaster/api.svc/json")
    assert "https" in str(raised.value) and BING_KEY not in str(raised.value)
    assert BING_KEY not in repr(BingWebmaster(BING_KEY))


def test_what_bing_found_in_a_submitted_index_and_its_files(bing: BingStandIn) -> None:
    when = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
    api = client(bing)
    api.submit_feed(SITE, FEED)
    (pending,) = api.feeds(SITE)
    assert (pending.url, pending.status, pending.last_crawled) == (FEED, "Pending", None)
    assert api.feed_details(SITE, FEED) == []
    files = {SITE + "sitemap-a-1.xml.gz": 120, SITE + "sitemap-b-1.xml.gz": 7}
    bing.crawled(FEED, when=when, files=files)
    (index,) = api.feeds(SITE)
    assert (index.status, index.url_count, index.last_crawled) == ("Success", 127, when)
    found = {f.url: (f.url_count, f.last_crawled) for f in api.feed_details(SITE, FEED)}
    assert found == {url: (count, when) for url, count in files.items()}
    reads = [r for r in bing.requests if r.method == "GET"]
    assert {r.path.rsplit("/", 1)[1] for r in reads} == {"GetFeeds", "GetFeedDetails"}
    assert all(r.query["apikey"] == [BING_KEY] for r in reads)


def test_a_feed_never_submitted_has_no_details(bing: BingStandIn) -> None:
    with pytest.raises(EngineError) as raised:
        client(bing).feed_details(SITE, FEED)
    assert "NotFound" in raised.value.reason and BING_KEY not in str(raised.value)


def test_the_key_is_in_no_error_whatever_its_case(bing: BingStandIn) -> None:
    bing.error_message = f"bad request apikey={BING_KEY.upper()}; Authorization: bearer abc.def"
    bing.fail(Failure.ERROR)
    with pytest.raises(EngineError) as raised:
        client(bing).submit_feed(SITE, FEED)
    text = str(raised.value)
    assert BING_KEY.upper() not in text and "abc.def" not in text and "[redacted]" in text
