"""The layout the publication records, read back: the same sites, rules and cap on sections, so
the same space for every URL (``where`` places a URL by the layout the published files were made
for)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.sections import (
    DEFAULT_MAX_SECTIONS_PER_HOST,
    MAX_SECTIONS_PER_HOST,
    SectionRules,
)
from sitemap_updater.sites import Sites
from sitemap_updater.store.spaces import Layout
from tests.property.strategies import SETTINGS

HOSTS = ["www.example.com", "www.example.de", "shop.example.org", "127.0.0.1:8080"]
sites = st.lists(st.sampled_from(HOSTS), min_size=1, max_size=4, unique=True).flatmap(
    lambda hosts: st.lists(
        st.sampled_from(["http", "https"]), min_size=len(hosts), max_size=len(hosts)
    ).map(lambda schemes: ",".join(f"{s}://{h}" for s, h in zip(schemes, hosts, strict=True)))
)
prefixes = st.text(st.sampled_from("abp/;=-_.~%"), max_size=8).map(lambda t: "/" + t)
rules = st.lists(
    st.tuples(prefixes, st.sampled_from(["products", "articles", "a-1", "pages"])),
    max_size=4,
    unique_by=lambda rule: rule[0],
).map(lambda found: ",".join(f"{prefix}={section}" for prefix, section in found))
paths = st.text(st.sampled_from("abp/;=-_.~"), max_size=10)


@SETTINGS
@given(
    site_url=sites,
    rule_text=rules,
    path=paths,
    named=st.none() | st.just("promo"),
    cap=st.integers(1, MAX_SECTIONS_PER_HOST),
)
def test_a_recorded_layout_places_every_url_as_the_layout_did(
    site_url: str, rule_text: str, path: str, named: str | None, cap: int
) -> None:
    layout = Layout(Sites.parse(site_url), SectionRules.parse(rule_text), max_sections=cap)
    read = Layout.recorded(layout.text)
    assert read.text == layout.text
    assert read.max_sections == cap
    for site in layout.sites:
        url = f"{site.origin}/{path}"
        assert read.space_for(url, named) == layout.space_for(url, named)


def test_the_text_0_1_0_recorded_has_the_default_cap() -> None:
    layout = Layout.recorded("sites=https://www.example.com;rules=/p/=products")
    assert layout.max_sections == DEFAULT_MAX_SECTIONS_PER_HOST
    assert layout.text_before_caps == "sites=https://www.example.com;rules=/p/=products"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "sites=https://www.example.com",
        "rules=;sites=x",
        "sites=ftp://x;rules=",
        "sites=https://www.example.com;rules=;sections=0",
        "sites=https://www.example.com;rules=;sections=many",
    ],
)
def test_any_other_text_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Layout.recorded(text)
