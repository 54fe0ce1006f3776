"""The site list (``SITE_URL``): parsing, the site owning a URL, key prefixes, and the origins
each site's hreflang alternates may point to."""

from __future__ import annotations

import pytest

from sitemap_updater.ingest.judge import Change
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.protocol.errors import ForeignHostError, InvalidUrlError
from sitemap_updater.protocol.urls import Site
from sitemap_updater.sites import Sites, sites_of
from tests.helpers.pages import judge_sent

COM = "https://www.example.com"
DE = "https://www.example.de"
SHOP = "http://shop.example.org:8080"


def test_one_origin_is_the_list_of_one_and_keeps_the_single_site_rules() -> None:
    sites = Sites.parse(COM)
    assert sites.all == (Site.parse(COM),)
    assert sites.primary == Site.parse(COM)
    assert sites.primary.alternate_origins == frozenset()
    assert len(sites) == 1
    assert list(sites) == [Site.parse(COM)]
    assert sites.key_prefix(sites.primary) == ""


def test_a_list_keeps_its_order_and_gives_each_site_the_others_as_alternate_origins() -> None:
    sites = Sites.parse(f" {DE} ,HTTPS://WWW.Example.COM:443/,{SHOP}", frozenset({"cdn.x.net"}))
    assert [site.origin for site in sites] == [DE, COM, SHOP]
    assert sites.primary.origin == DE
    assert sites.all[1].alternate_origins == frozenset({DE, SHOP})
    assert all(site.media_hosts == frozenset({"cdn.x.net"}) for site in sites)
    assert [sites.key_prefix(site) for site in sites] == [
        "",
        "www.example.com/",
        "shop.example.org/",
    ]


def test_alternates_any_host_lets_every_site_point_anywhere() -> None:
    sites = Sites.parse(f"{COM},{DE}", alternates_any_host=True)
    assert [site.alternate_origins for site in sites] == [None, None]
    assert sites.primary.alternate_ok("https://www.example.fr/x")


def test_site_of_finds_the_owner_of_a_normalized_url() -> None:
    sites = Sites.parse(f"{COM},{DE},{SHOP}")
    assert sites.site_of(DE + "/schuhe/42") is sites.all[1]
    assert sites.site_of(SHOP + "/") is sites.all[2]
    assert sites.site_of(COM + "/") is sites.primary
    for url in [
        "https://www.example.fr/x",
        "http://www.example.de/x",  # another scheme is another origin
        "http://shop.example.org/x",  # another port too
        DE,  # no path: not a normalized URL
        f"{COM}.evil.org/x",
        f"{COM}@evil.org/x",
        "",
        "https://",
    ]:
        assert sites.site_of(url) is None, url


def test_owner_names_the_listed_sites_or_keeps_the_words_of_a_site_alone() -> None:
    sites = Sites.parse(f"{COM},{DE}")
    assert sites.owner(DE + "/a") is sites.all[1]
    with pytest.raises(ForeignHostError) as listed:
        sites.owner("https://www.example.fr/a", field="url", value="https://WWW.example.fr/a")
    assert (listed.value.field, listed.value.value) == ("url", "https://WWW.example.fr/a")
    assert listed.value.rule == (
        f"must be on one of the sites (SITE_URL): {COM}, {DE} (same scheme, host and port)"
    )
    with pytest.raises(ForeignHostError) as alone:
        Sites.parse(COM).owner(DE + "/a")
    assert alone.value.rule == f"must be on {COM} (same scheme, host and port as the site)"


@pytest.mark.parametrize(
    ("raw", "value", "rule"),
    [
        ("", "", "entry 1 of 1 is empty"),
        (f"{COM},", f"{COM},", "entry 2 of 2 is empty"),
        (f"{COM},,{DE}", f"{COM},,{DE}", "entry 2 of 3 is empty"),
        ("ftp://files.example.com", "ftp://files.example.com", "scheme 'ftp' is not allowed"),
        (f"{COM},ftp://files.example.com", "ftp://files.example.com", "entry 2 of 2: scheme"),
        (f"{COM},{DE}/de", f"{DE}/de", "entry 2 of 2: must be scheme://host[:port], without a"),
        (f"{COM}, http://WWW.example.com", "http://WWW.example.com", "2: host www.example.com is"),
        (f"{COM},{COM}:8443", f"{COM}:8443", "listed twice (also as https://www.example.com)"),
    ],
)
def test_a_bad_list_names_the_entry_and_the_rule(raw: str, value: str, rule: str) -> None:
    with pytest.raises(InvalidUrlError) as error:
        Sites.parse(raw)
    assert error.value.field == "site"
    assert error.value.value == value
    assert rule in error.value.rule


def test_a_site_alone_is_its_own_list() -> None:
    site = Site.parse(COM)
    assert sites_of(site).all == (site,)
    assert sites_of(site) is sites_of(site)


def _judged(sites: Sites, url: str, alternates: list[dict[str, str]]) -> Change | Rejection:
    return judge_sent(sites, {"action": "upsert", "url": url, "alternates": alternates})


def test_alternates_may_point_to_the_origins_the_site_allows() -> None:
    alternates = [{"hreflang": "en", "href": COM + "/a"}, {"hreflang": "de", "href": DE + "/a"}]
    listed = Sites.parse(f"{COM},{DE}")
    change = _judged(listed, COM + "/a", alternates)
    assert isinstance(change, Change) and change.page is not None
    assert [a.href for a in change.page.alternates] == [COM + "/a", DE + "/a"]
    alone = _judged(Sites.parse(COM), COM + "/a", alternates)
    assert isinstance(alone, Rejection)
    assert (alone.field, alone.value) == ("alternates[1].href", DE + "/a")
    assert alone.rule == f"must be on {COM} (same scheme, host and port as the site)"
    far = [{"hreflang": "fr", "href": "https://WWW.example.fr/a"}]
    refused = _judged(listed, COM + "/a", far)
    assert isinstance(refused, Rejection)
    assert (refused.field, refused.value) == ("alternates[0].href", "https://WWW.example.fr/a")
    assert refused.rule == (
        f"must be on one of the sites (SITE_URL): {COM}, {DE} (same scheme, host and port)"
    )
    anywhere = _judged(Sites.parse(COM, alternates_any_host=True), COM + "/a", far)
    assert isinstance(anywhere, Change) and anywhere.page is not None
    (alternate,) = anywhere.page.alternates
    assert alternate.href == "https://www.example.fr/a"


def test_a_change_is_judged_on_the_listed_site_that_owns_its_url() -> None:
    listed = Sites.parse(f"{COM},{DE}")
    german = _judged(listed, DE + "/a", [{"hreflang": "en", "href": COM + "/a"}])
    assert isinstance(german, Change) and german.url == DE + "/a"
    foreign = judge_sent(listed, {"action": "upsert", "url": "https://www.example.fr/a"})
    assert isinstance(foreign, Rejection)
    assert (foreign.field, foreign.value) == ("url", "https://www.example.fr/a")
