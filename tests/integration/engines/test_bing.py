"""The Bing Webmaster client against the local SubmitFeed stand-in: the documented request,
each ApiErrorCode sorted, and the API key in no error text."""

from __future__ import annotations

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
