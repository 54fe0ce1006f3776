"""The one recognizer of values in normalized form (``protocol.normalized``).

Ingest's fast path, ``build`` and ``backfill`` each had a recognizer of their own, and a test
that compared the normalized-entry recognizer with ``make_entry``. They now share this one, so
that comparison is this module's unit test of it: whatever it recognizes, ``make_entry``
returns unchanged. The paths built on it keep their own fast-equals-careful property tests
(tests/property/test_fast_judge.py, test_fast_backfill.py).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.protocol.entry import Alternate, Image, make_entry
from sitemap_updater.protocol.normalized import NormalForm, normal_form, recognize
from sitemap_updater.protocol.urls import Site
from tests.property.strategies import NOW, SETTINGS, SITE, SITE_LISTS, lastmods, urls


@st.composite
def raw_entries(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "loc": draw(urls),
        "lastmod": draw(st.none() | lastmods),
        "changefreq": draw(st.none() | st.sampled_from(["daily", "weekly", "Daily", "often"])),
        "priority": draw(st.none() | st.floats(-0.5, 1.5) | st.sampled_from([0.5, 0.25, 1.0])),
        "alternates": draw(
            st.lists(
                st.tuples(st.sampled_from(["de", "en-GB", "x-default", "d e"]), urls), max_size=3
            )
        ),
        "images": draw(st.lists(urls, max_size=3)),
    }


@SETTINGS
@given(raw_entries(), st.sampled_from([sites.primary for sites in SITE_LISTS]))
def test_a_recognized_entry_is_what_make_entry_returns(raw: dict[str, Any], site: Site) -> None:
    values = recognize(
        NormalForm(site, NOW),
        raw["loc"],
        raw["lastmod"],
        raw["changefreq"],
        raw["priority"],
        raw["alternates"],
        raw["images"],
    )
    if values is None:
        return
    careful = make_entry(
        site,
        loc=raw["loc"],
        lastmod=raw["lastmod"],
        changefreq=raw["changefreq"],
        priority=raw["priority"],
        alternates=tuple(Alternate(hreflang=h, href=u) for h, u in raw["alternates"]),
        images=tuple(Image(loc=u) for u in raw["images"]),
        now=NOW,
    )
    assert careful == values


def test_typical_values_are_recognized_as_they_are() -> None:
    alternates = [("de", "https://www.example.com/de/a")]
    values = recognize(
        NormalForm(SITE, NOW),
        "https://www.example.com/a",
        "2026-01-02",
        "daily",
        0.5,
        alternates,
        ["https://cdn.example.net/a.jpg"],
    )
    assert values is not None
    assert values.alternates == (Alternate("de", "https://www.example.com/de/a"),)
    assert values.images == (Image("https://cdn.example.net/a.jpg"),)
    assert values.priority == 0.5


def test_values_of_another_type_or_form_are_not_recognized() -> None:
    form = NormalForm(SITE, NOW)
    loc = "https://www.example.com/a"
    assert recognize(form, 7, None, None, None, [], []) is None
    assert recognize(form, "https://other.example.com/a", None, None, None, [], []) is None
    assert recognize(form, loc, 20260102, None, None, [], []) is None
    assert recognize(form, loc, "2026-1-2", None, None, [], []) is None
    assert recognize(form, loc, None, ["daily"], None, [], []) is None
    assert recognize(form, loc, None, None, "0.5", [], []) is None
    assert recognize(form, loc, None, None, 0.25, [], []) is None
    assert recognize(form, loc, None, None, None, [("de", 1)], []) is None
    assert recognize(form, loc, None, None, None, [], [loc] * 1001) is None


def test_a_site_with_a_port_recognizes_nothing() -> None:
    form = NormalForm(Site.parse("https://www.example.com:8443"), NOW)
    assert recognize(form, "https://www.example.com:8443/a", None, None, None, [], []) is None


def test_one_form_serves_each_site_and_clock() -> None:
    assert normal_form(SITE, NOW) is normal_form(SITE, NOW)
    other = Site.parse("https://example.org")
    assert normal_form(other, NOW) is not normal_form(SITE, NOW)


def test_alternates_on_the_origins_a_site_allows_are_recognized() -> None:
    german = [("de", "https://www.example.de/schuhe/42")]
    far = [("fr", "https://www.example.fr/a")]
    alone, listed, anywhere = (NormalForm(sites.primary, NOW) for sites in SITE_LISTS)
    assert not alone.alternates(german)
    assert listed.alternates(german)
    assert not listed.alternates(far)
    assert anywhere.alternates(far)
    assert not anywhere.alternates([("fr", "https://WWW.example.fr/a")])  # not normalized
