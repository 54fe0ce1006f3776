"""Hypothesis strategies the fast-path property tests share: URL-ish and lastmod-ish text."""

from __future__ import annotations

import os
import string
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from sitemap_updater.protocol.urls import Site
from sitemap_updater.sites import Sites, sites_of

SITE = Site.parse("https://www.example.com")
#: the site alone, the site first of a list of three, and the site whose alternates may point
#: to any host
SITE_LISTS = (
    sites_of(SITE),
    Sites.parse("https://www.example.com,https://www.example.de,http://shop.example.org:8080"),
    Sites.parse("https://www.example.com", alternates_any_host=True),
)
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
#: 200 examples a test in CI (the suite's time budget); ``PROPERTY_EXAMPLES=5000 pytest
#: tests/property`` tries more (docs/development.md, "Deeper runs")
SETTINGS = settings(
    max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# URL-ish text: mostly characters that matter to the rules, some of anything.
_URL_CHARS = (
    string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@/?#%[] \"<>\\^`{|}" + "é\u00a0\n"
)
url_tail = st.one_of(st.text(_URL_CHARS, max_size=40), st.text(max_size=20))
urls = st.one_of(
    url_tail.map(lambda t: "https://www.example.com/" + t),
    url_tail.map(lambda t: "https://cdn.example.net/" + t),
    url_tail.map(lambda t: "https://www.example.de/" + t),
    st.tuples(st.sampled_from(["http", "https", "HTTPS", "ftp"]), st.text(_URL_CHARS, max_size=12))
    .map(lambda p: f"{p[0]}://{p[1]}"),
    st.sampled_from([
        "https://www.example.com/" + "a" * 2030,
        "https://www.example.com/" + "&" * 420,
        "https://www.example.com/%zz",
        "https://www.example.com:443/x",
        "http://shop.example.org:8080/x",
        "https://WWW.example.de/x",
        "https://www.example.com/%7euser/%41b/../%e2%82%ac/./",
        "https://www.example.com/.well-known/a/..",
        "",
    ]),
)  # fmt: skip
lastmods = st.one_of(
    st.datetimes(timezones=st.just(UTC)).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")),
    st.dates().map(lambda d: d.isoformat()),
    st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?Z)?", fullmatch=True),
    st.sampled_from(["2026-11-21T12:00:00Z", "2026-11-22", "2026-11-20T12:00:00+02:00"]),
    st.text(max_size=25),
)


def some_of(
    draw: st.DrawFn, into: dict[str, Any], fields: dict[str, st.SearchStrategy[Any]]
) -> None:
    """Draw each of ``fields`` into ``into``, or leave it out, at random."""
    for name, strategy in fields.items():
        if draw(st.booleans()):
            into[name] = draw(strategy)
