"""What the property tests share: their settings and clock, URL-ish text, and a drawing of
optional fields."""

from __future__ import annotations

import os
import string
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from sitemap_updater.protocol.urls import Site

SITE = Site.parse("https://www.example.com")
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


def some_of(
    draw: st.DrawFn, into: dict[str, Any], fields: dict[str, st.SearchStrategy[Any]]
) -> None:
    """Draw each of ``fields`` into ``into``, or leave it out, at random."""
    for name, strategy in fields.items():
        if draw(st.booleans()):
            into[name] = draw(strategy)
