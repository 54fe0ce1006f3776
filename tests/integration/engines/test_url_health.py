"""The URL health check against a local site with real redirects, 404s, noindex pages and
canonical tags: what each page is found to be, that fetches stay on the listed hosts, name
themselves, and keep to the per-host pace; that they connect only to a public address, the one
checked (the resolver is the test's: nothing leaves 127.0.0.1), and that no page stops one."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from sitemap_updater.bounded_http import Deadline
from sitemap_updater.engines.fetching import fetch
from sitemap_updater.engines.health import USER_AGENT, PageHealth, check_page
from sitemap_updater.engines.pacing import HostPacer
from sitemap_updater.protocol.urls import Site
from sitemap_updater_local.standins.site import HOSTILE, LocalSite


@pytest.fixture
def elsewhere() -> Iterator[LocalSite]:
    with LocalSite() as other:
        yield other


@pytest.fixture
def site(elsewhere: LocalSite) -> Iterator[LocalSite]:
    with LocalSite(elsewhere=elsewhere.url) as local:
        yield local


def check(site: LocalSite, path: str, **options: object) -> PageHealth:
    settings: dict[str, object] = {"listed_hosts": [site.url], "deadline_seconds": 5.0}
    return check_page(site.url + path, **(settings | options))  # type: ignore[arg-type]


def test_a_plain_page_is_healthy(site: LocalSite) -> None:
    health = check(site, "/articles/7")
    assert health == PageHealth(
        site.url + "/articles/7", 200, None, False, site.url + "/articles/7", False, None
    )
    assert health.healthy


@pytest.mark.parametrize(
    ("path", "status", "target"),
    [("/redirect-301", 301, "/articles/1"), ("/redirect-302", 302, "/articles/2")],
)
def test_a_redirect_is_recorded_with_its_target(
    site: LocalSite, path: str, status: int, target: str
) -> None:
    health = check(site, path)
    assert (health.status, health.redirect_to, health.problem) == (
        status,
        site.url + target,
        "redirect",
    )
    assert [r.path for r in site.requests] == [path]  # recorded, not followed


def test_a_redirect_off_the_listed_hosts_is_never_followed(
    site: LocalSite, elsewhere: LocalSite
) -> None:
    health = check(site, "/redirect-off-site")
    assert health.redirect_to == elsewhere.url + "/somewhere" and health.problem == "redirect"
    assert elsewhere.requests == []


@pytest.mark.parametrize(
    ("path", "status", "problem"),
    [("/missing", 404, "not-found"), ("/gone", 410, "not-found"), ("/broken", 500, "error")],
)
def test_an_error_status_is_a_problem(
    site: LocalSite, path: str, status: int, problem: str
) -> None:
    health = check(site, path)
    assert (health.status, health.problem) == (status, problem)


@pytest.mark.parametrize("path", ["/noindex-meta", "/noindex-googlebot", "/noindex-header"])
def test_noindex_by_meta_or_header(site: LocalSite, path: str) -> None:
    health = check(site, path)
    assert health.status == 200 and health.noindex and health.problem == "noindex"


def test_a_canonical_naming_another_page(site: LocalSite) -> None:
    health = check(site, "/foreign-canonical")
    assert health.canonical == site.url + "/articles/3"
    assert health.foreign_canonical and health.problem == "foreign-canonical"


def test_a_url_on_no_listed_host_is_not_fetched(site: LocalSite, elsewhere: LocalSite) -> None:
    health = check_page(
        elsewhere.url + "/articles/1", listed_hosts=[site.url], deadline_seconds=5.0
    )
    assert health.problem == "off-site" and health.status is None
    assert elsewhere.requests == []


def test_listed_hosts_may_be_sites(site: LocalSite) -> None:
    health = check_page(
        site.url + "/articles/1", listed_hosts=[Site.parse(site.url)], deadline_seconds=5.0
    )
    assert health.healthy


def test_a_page_that_drips_in_ends_by_the_deadline(site: LocalSite) -> None:
    health = check(site, "/slow", deadline_seconds=0.3)
    assert (health.status, health.problem) == (None, "unreachable")


def test_a_stopped_site_is_unreachable() -> None:
    with LocalSite() as gone:
        url = gone.url
    health = check_page(url + "/articles/1", listed_hosts=[url], deadline_seconds=2.0)
    assert (health.status, health.problem) == (None, "unreachable")


def test_every_fetch_names_itself(site: LocalSite) -> None:
    for path in ("/articles/1", "/missing", "/redirect-301"):
        check(site, path)
    assert {r.headers["User-Agent"] for r in site.requests} == {USER_AGENT}
    assert {r.method for r in site.requests} == {"GET"}


def test_fetches_to_one_host_keep_to_its_pace(site: LocalSite) -> None:
    now = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    pacer = HostPacer(2.0, clock=lambda: now[0], sleep=sleep)
    for n in range(1, 5):
        assert check(site, f"/articles/{n}", pacer=pacer).healthy
    assert waits == [0.5, 0.5, 0.5]
    assert len(site.requests) == 4


def test_no_more_than_the_bound_of_a_page_is_read(site: LocalSite) -> None:
    answer = fetch(site.url + "/articles/1", deadline=Deadline(5.0), max_bytes=100, headers={})
    assert answer.status == 200 and len(answer.body) == 100 and not answer.complete


def test_the_guard_refuses_any_address_but_loopback(loopback_only: list[object]) -> None:
    # the host resolves to a public address: the check connects to it, and the guard stops it
    with pytest.raises(AssertionError, match="not to loopback"):  # the test would fail
        check_page(
            "https://www.example.com/a",
            listed_hosts=["https://www.example.com"],
            deadline_seconds=1,
            resolve=lambda host, port: ["93.184.216.34"],
        )
    assert loopback_only == [("93.184.216.34", 443)]


def _getaddrinfo(*addresses: str) -> Callable[..., list[Any]]:
    """A resolver that answers ``addresses`` for any name, as ``socket.getaddrinfo`` does."""

    def answer(host: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        found = []
        for address in addresses:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            where = (address, port, 0, 0) if family == socket.AF_INET6 else (address, port)
            found.append((family, socket.SOCK_STREAM, 6, "", where))
        return found

    return answer


@pytest.mark.parametrize(
    "address",
    ["169.254.169.254", "10.0.0.7", "::ffff:169.254.169.254", "0.0.0.0", "127.0.0.1", "fd00::1"],
)
def test_a_host_that_resolves_to_a_non_public_address_is_never_connected_to(
    loopback_only: list[object], monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", _getaddrinfo(address))
    health = check_page(
        "https://www.example.com/a", listed_hosts=["https://www.example.com"], deadline_seconds=1
    )
    assert (health.status, health.problem) == (None, "unreachable")
    assert address in (health.reason or "") and "not a public address" in (health.reason or "")
    assert loopback_only == []


def test_the_address_checked_is_the_one_connected_to(loopback_only: list[object]) -> None:
    """DNS rebinding: a second resolution would answer loopback; there is none."""
    answers = iter([["93.184.216.34"], ["127.0.0.1"]])
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return next(answers)

    with pytest.raises(AssertionError, match="not to loopback"):
        check_page(
            "http://www.example.com/a",
            listed_hosts=["http://www.example.com"],
            deadline_seconds=1,
            resolve=resolve,
        )
    assert asked == ["www.example.com"] and loopback_only == [("93.184.216.34", 80)]


def test_the_site_is_named_in_host_and_the_checked_address_is_connected_to(
    site: LocalSite,
) -> None:
    port = site.url.rsplit(":", 1)[1]
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["10.0.0.9", "127.0.0.1"]  # a site on loopback is reached on loopback alone

    health = check_page(
        f"http://localhost:{port}/articles/3",
        listed_hosts=[f"http://localhost:{port}"],
        deadline_seconds=5.0,
        resolve=resolve,
    )
    assert health.status == 200 and asked == ["localhost"]
    assert [r.headers["Host"] for r in site.requests] == [f"localhost:{port}"]


@pytest.mark.parametrize("path", sorted(HOSTILE))
def test_no_page_stops_a_check(site: LocalSite, path: str) -> None:
    site.pages.update(HOSTILE)
    health = check(site, path)
    assert health.url == site.url + path and health.status is not None
    assert health.problem in {None, "redirect"}
    if health.redirect_to is not None:
        assert len(health.redirect_to) > 60_000  # recorded; the observer caps what it stores
