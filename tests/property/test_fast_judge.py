"""The judge's fast paths agree with its careful paths on arbitrary input.

Each fast path either gives exactly what the careful path gives, or steps aside ("not sure")
and lets the careful path decide: the URL and lastmod recognizers, the change-object recognizer
(``ingest.fast``, whose values the protocol core's one recognizer of normalized form checks;
that recognizer's own test is tests/unit/protocol/test_normalized.py), the orjson digest, the
item size counted without the item, and the whole body decoded with orjson.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.events import careful_decode_body, decode_body
from sitemap_updater.ingest.fast import (
    FIXED_ALLOWANCE,
    ROOMY_BODY,
    decide_together,
    fast_change,
    fast_changes,
)
from sitemap_updater.ingest.item_size import item_size, live_item_size
from sitemap_updater.ingest.judged import ChangeEvent
from sitemap_updater.ingest.ordering import (
    canonical_entry_json,
    content_digest,
    format_instant,
    instant_text,
)
from sitemap_updater.ingest.wire import DecodeError, decode_change
from sitemap_updater.protocol import SitemapError
from sitemap_updater.protocol.entry import Alternate, Entry, Image, plain_fields
from sitemap_updater.protocol.extensions.news import News
from sitemap_updater.protocol.extensions.video import Relationship, Video
from sitemap_updater.protocol.lastmod import _parse_text, is_normalized_lastmod
from sitemap_updater.protocol.limits import MAX_BYTES
from sitemap_updater.protocol.render.fragments import entry_fragment, recognized_fragment
from sitemap_updater.protocol.urls import already_normalized, careful_normalize_url, normalize_url
from sitemap_updater.sites import Sites, sites_of
from sitemap_updater.store.items import live_item
from tests.property.strategies import NOW, SETTINGS, SITE, SITE_LISTS, lastmods, some_of, urls

site_lists = st.sampled_from(SITE_LISTS)


def _fast(body: str, default_time: datetime | None, sites: Sites) -> ChangeEvent | None:
    """The fast path's change of a one-object body (``None``: the wire decoder refuses it, or
    the fast path is not sure)."""
    try:
        change = decode_change(body)
    except DecodeError:
        return None
    return fast_change(change, None, default_time, sites, NOW, len(body))


#: section names, and values that are not one
sections = st.sampled_from(["products", "a", "blog-2", "x" * 32, "x" * 33, "Products", "", "a_b"])


@SETTINGS
@given(urls)
def test_a_recognized_url_is_its_own_normalized_form(url: str) -> None:
    if not already_normalized(url):
        return
    assert careful_normalize_url(url) == url


@SETTINGS
@given(urls)
def test_normalize_url_is_the_careful_normalizer(url: str) -> None:
    try:
        careful: object = careful_normalize_url(url)
    except SitemapError as exc:
        careful = (type(exc), exc.field, exc.value, exc.rule)
    try:
        fast: object = normalize_url(url)
    except SitemapError as exc:
        fast = (type(exc), exc.field, exc.value, exc.rule)
    assert fast == careful


@SETTINGS
@given(lastmods, st.datetimes(timezones=st.just(UTC)))
def test_a_recognized_lastmod_is_its_own_normalized_form(value: str, now: datetime) -> None:
    if not is_normalized_lastmod(value, now):
        return
    text, moment = _parse_text(value)
    assert text == value
    assert moment - now <= timedelta(days=1)


entries = st.builds(
    Entry,
    loc=st.text(max_size=30),
    lastmod=st.none() | st.text(max_size=12),
    changefreq=st.none() | st.text(max_size=8),
    priority=st.none() | st.sampled_from([k / 10 for k in range(11)]),
    alternates=st.lists(st.builds(Alternate, st.text(max_size=6), st.text(max_size=20)), max_size=3)
    .map(tuple),
    images=st.lists(st.builds(Image, st.text(max_size=20)), max_size=3).map(tuple),
    videos=st.lists(
        st.builds(
            Video,
            st.text(max_size=8),
            st.text(max_size=8),
            st.text(max_size=8),
            content_loc=st.none() | st.text(max_size=8),
            duration=st.none() | st.integers(1, 28_800),
            tags=st.lists(st.text(max_size=4), max_size=3).map(tuple),
            live=st.none() | st.booleans(),
            restriction=st.none() | st.just(Relationship("allow", ("GB",))),
        ),
        max_size=2,
    ).map(tuple),
    news=st.none() | st.builds(
        News, st.text(max_size=6), st.just("en"), st.text(max_size=10), st.text(max_size=6)
    ),
)  # fmt: skip


@SETTINGS
@given(entries, st.text(max_size=40), st.text(max_size=64), st.none() | st.text(max_size=40))
def test_item_size_and_digest_fast_paths_match_the_reference(
    entry: Entry, key: str, digest: str, section: str | None
) -> None:
    item = live_item(entry, key, digest, section)
    assert live_item_size(entry, key, digest, section) == item_size(item)
    reference = canonical_entry_json(entry, section).encode("ascii")
    assert content_digest(entry, section) == hashlib.sha256(reference).hexdigest()


@SETTINGS
@given(st.datetimes(timezones=st.timezones()))
def test_event_time_format_matches_the_field_by_field_form(moment: datetime) -> None:
    try:
        u = moment.astimezone(UTC)
    except OverflowError:
        return
    expected = (
        f"{u.year:04d}{u.month:02d}{u.day:02d}T{u.hour:02d}{u.minute:02d}{u.second:02d}"
        f".{u.microsecond:06d}Z"
    )
    assert format_instant(moment) == expected


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)


@st.composite
def change_objects(draw: st.DrawFn) -> dict[str, Any]:
    obj: dict[str, Any] = {"action": draw(st.sampled_from(["upsert", "delete", "remove"]))}
    obj["url"] = draw(urls | json_values)
    optional: dict[str, st.SearchStrategy[Any]] = {
        "lastmod": lastmods | json_values,
        "changefreq": st.sampled_from(["daily", "weekly", "Daily"]) | json_values,
        "priority": st.floats() | st.integers(-1, 2) | st.sampled_from([0.8, 2**70]),
        "alternates": st.lists(
            st.fixed_dictionaries(
                {"hreflang": st.sampled_from(["de", "1", "english", "x-default"]), "href": urls}
            ),
            max_size=2,
        )
        | json_values,
        "images": st.lists(st.fixed_dictionaries({"loc": urls}), max_size=2) | json_values,
        "occurred_at": st.datetimes(timezones=st.timezones()).map(datetime.isoformat) | json_values,
        "section": sections | json_values,
        "news": st.fixed_dictionaries(
            {
                "publication": st.fixed_dictionaries(
                    {"name": st.text(max_size=6), "language": st.sampled_from(["en", "EN", "e1"])}
                ),
                "publication_date": lastmods,
                "title": st.text(max_size=6) | json_values,
            }
        )
        | json_values,
        "videos": st.lists(
            st.fixed_dictionaries(
                {
                    "thumbnail_loc": urls,
                    "title": st.text(max_size=6),
                    "description": st.text(max_size=6),
                },
                optional={
                    "content_loc": urls,
                    "player_loc": urls,
                    "duration": st.integers(-1, 30_000) | json_values,
                    "tag": st.lists(st.text(max_size=4), max_size=3),
                    "live": st.booleans() | json_values,
                    "price": json_values,
                },
            ),
            max_size=2,
        )
        | json_values,
        "extra": json_values,
    }
    some_of(draw, obj, optional)
    return obj


bodies = st.one_of(
    change_objects().map(json.dumps),
    st.lists(change_objects(), min_size=0, max_size=3).map(json.dumps),
    change_objects().map(lambda c: json.dumps({"detail-type": "x", "detail": c, "time": "x"})),
    json_values.map(json.dumps),
    st.text(max_size=30),
    change_objects().map(lambda c: json.dumps(c)[:-3]),
)


@SETTINGS
@given(bodies, site_lists)
def test_decode_body_gives_the_careful_judgement(body: str, sites: Sites) -> None:
    sent_at = NOW - timedelta(seconds=1)
    fast = decode_body(body, sent_at=sent_at, site=sites, now=NOW)
    careful = careful_decode_body(body, sent_at=sent_at, site=sites, now=NOW)
    assert fast == careful


# --- the fast path of the whole change object (ingest.fast) ---------------------------------

site_urls = st.one_of(
    st.from_regex(r"https://www\.example\.com/[a-z0-9/_.'&%-]{0,30}", fullmatch=True),
    st.from_regex(r"https://www\.example\.(de|fr)/[a-z0-9/_.'&%-]{0,30}", fullmatch=True),
    st.from_regex(r"http://shop\.example\.org:8080/[a-z0-9/_.'&%-]{0,30}", fullmatch=True),
    # what the careful judge normalizes: IRIs, spaces, upper-case hosts, default ports
    st.from_regex(
        r"(https|HTTPS)://(www|WWW)\.(example|EXAMPLE)\.(com|de)(:443|:80)?/[a-zé ß/%<-]{0,20}",
        fullmatch=True,
    ),
    urls,
)
utc_instants = st.datetimes(
    min_value=datetime(1969, 12, 31), max_value=datetime(2026, 11, 22, 12, 0, 0, 1)
).map(lambda d: d.replace(tzinfo=UTC))


def _utc_text(moment: datetime, decimals: int) -> str:
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{moment.microsecond:06d}"[:decimals]
    return f"{text}.{fraction}Z" if decimals else f"{text}Z"


utc_texts = st.builds(_utc_text, utc_instants, st.sampled_from([0, 3, 6]))


@st.composite
def normalized_objects(draw: st.DrawFn) -> dict[str, Any]:
    """Change objects in (or close to) normalized form: the fast path's own input, with slips
    it must step aside for."""
    obj: dict[str, Any] = {"action": draw(st.sampled_from(["upsert", "upsert", "delete"]))}
    obj["url"] = draw(site_urls)
    if draw(st.booleans()):
        obj["occurred_at"] = draw(
            utc_texts | st.sampled_from([None, 5, "2025-01-01T00:00:00+01:00"])
        )
    fields: dict[str, st.SearchStrategy[Any]] = {
        "lastmod": lastmods | st.sampled_from([None, 20250101, "2026-11-21"]),
        "changefreq": st.sampled_from(["daily", "never", None, "Daily", 1]),
        "priority": st.sampled_from([0.0, 0.5, 1.0, None, 0.25, 1, True, "0.5"]),
        "alternates": st.lists(
            st.fixed_dictionaries(
                {
                    "hreflang": st.sampled_from(["de", "en-GB", "1", "english", "jp", "zh-Hant"]),
                    "href": site_urls,
                }
            )
            | st.sampled_from(
                [{"hreflang": "de"}, {"hreflang": "de", "href": SITE.root_url, "x": 1}, "de"]
            ),
            max_size=3,
        )
        | st.sampled_from([None, {}]),
        "images": st.lists(
            st.fixed_dictionaries({"loc": site_urls}) | st.sampled_from([{}, {"loc": 1}, "x"]),
            max_size=3,
        )
        | st.sampled_from([None, {}]),
        "title": st.just("a field of the producer's own"),
        "section": sections | st.sampled_from([None, 5]),
    }
    for name, strategy in fields.items():
        if draw(st.integers(0, 3)):
            obj[name] = draw(strategy)
    return obj


@SETTINGS
@given(normalized_objects(), site_lists)
def test_normalized_objects_get_the_careful_judgement(
    decoded: dict[str, Any], sites: Sites
) -> None:
    body = json.dumps(decoded)
    sent_at = NOW - timedelta(seconds=1)
    fast = decode_body(body, sent_at=sent_at, site=sites, now=NOW)
    careful = careful_decode_body(body, sent_at=sent_at, site=sites, now=NOW)
    assert fast == careful
    # what build spools from the fast path alone: no default time, its own fragment
    recognized = _fast(body, None, sites)
    if recognized is None:
        return
    (event,) = careful.items
    assert isinstance(event, ChangeEvent)
    if "occurred_at" in decoded:
        assert recognized == event
    assert recognized.loc == event.loc
    assert recognized.section == event.section
    assert recognized.entry == event.entry
    site = sites.site_of(event.loc)
    assert site is not None
    if event.entry is not None:
        assert recognized.entry is not None
        fragment = recognized_fragment(plain_fields(recognized.entry), max_bytes=MAX_BYTES)
        assert fragment == entry_fragment(event.entry, site, max_bytes=MAX_BYTES)


@SETTINGS
@given(normalized_objects(), site_lists)
def test_a_fast_item_is_never_larger_than_its_body_allows(
    decoded: dict[str, Any], sites: Sites
) -> None:
    """The bound that lets the fast path skip counting the item (``ingest.fast``)."""
    body = json.dumps(decoded, separators=(",", ":"))
    event = _fast(body, NOW, sites)
    if event is None or event.entry is None:
        return
    size = live_item_size(event.entry, event.event_key, event.digest, event.section)
    # URLs the fast path normalized may be longer than their text: they count whole
    room = 0 if event.loc == decoded["url"] else len(event.loc)
    media = [a.href for a in event.entry.alternates] + [i.loc for i in event.entry.images]
    given = [a["href"] for a in decoded.get("alternates", [])]
    given += [i["loc"] for i in decoded.get("images", [])]
    if media != given:
        room += sum(map(len, media))
    assert size <= len(body) + FIXED_ALLOWANCE + room
    assert size <= ROOMY_BODY + FIXED_ALLOWANCE


def test_a_body_too_large_for_one_item_is_refused_with_the_reason() -> None:
    images = [{"loc": f"{SITE.origin}/{i:04d}/" + "i" * 400} for i in range(1000)]
    body = json.dumps({"action": "upsert", "url": SITE.root_url, "images": images})
    assert len(body) > ROOMY_BODY
    assert _fast(body, NOW, sites_of(SITE)) is None
    judged = decode_body(body, sent_at=NOW, site=SITE, now=NOW)
    assert judged == careful_decode_body(body, sent_at=NOW, site=SITE, now=NOW)
    (rejection,) = judged.rejections
    assert rejection.field == "entry"
    assert "must fit in one table item" in rejection.rule


def test_a_typical_event_is_decided_by_the_fast_path() -> None:
    decoded = {
        "action": "upsert",
        "url": f"{SITE.origin}/shoes/42",
        "occurred_at": "2026-11-20T10:00:01.250Z",
        "lastmod": "2026-11-20T10:00:00Z",
        "changefreq": "weekly",
        "priority": 0.8,
        "alternates": [{"hreflang": "de", "href": f"{SITE.origin}/de/shoes/42"}],
        "images": [{"loc": "https://cdn.example.net/42.jpg"}],
    }
    body = json.dumps(decoded)
    event = _fast(body, None, sites_of(SITE))
    assert event is not None
    assert (event,) == careful_decode_body(body, sent_at=NOW, site=SITE, now=NOW).items


@pytest.mark.parametrize(
    ("url", "loc"),
    [
        (f"{SITE.origin}/größe/café/42", f"{SITE.origin}/gr%C3%B6%C3%9Fe/caf%C3%A9/42"),
        ("https://WWW.Example.COM:443/shoes 42", f"{SITE.origin}/shoes%2042"),
    ],
)
def test_an_event_whose_url_needs_normalizing_is_decided_by_the_fast_path(
    url: str, loc: str
) -> None:
    decoded = {
        "action": "upsert",
        "url": url,
        "lastmod": "2026-11-20",
        "alternates": [{"hreflang": "de", "href": url.replace("42", "zweiundvierzig")}],
        "images": [{"loc": "https://cdn.example.net/größe 42.jpg"}],
    }
    body = json.dumps(decoded)
    event = _fast(body, NOW, sites_of(SITE))
    assert event is not None
    assert event.loc == loc
    assert event.entry is not None
    assert event.entry.images[0].loc == "https://cdn.example.net/gr%C3%B6%C3%9Fe%2042.jpg"
    assert (event,) == careful_decode_body(body, sent_at=NOW, site=SITE, now=NOW).items


@SETTINGS
@given(
    st.one_of(
        utc_texts,
        st.datetimes(timezones=st.timezones()).map(datetime.isoformat),
        st.text(max_size=30),
    )
)
def test_instant_text_is_the_formatted_instant(raw: str) -> None:
    text = instant_text(raw)
    if text is None:
        return
    assert text == format_instant(datetime.fromisoformat(raw))


@SETTINGS
@given(st.lists(normalized_objects(), min_size=1, max_size=4), site_lists)
def test_arrays_of_normalized_objects_get_the_careful_judgement(
    decoded: list[dict[str, Any]], sites: Sites
) -> None:
    body = json.dumps(decoded)
    sent_at = NOW - timedelta(seconds=1)
    fast = decode_body(body, sent_at=sent_at, site=sites, now=NOW)
    assert fast == careful_decode_body(body, sent_at=sent_at, site=sites, now=NOW)


@SETTINGS
@given(st.lists(normalized_objects(), max_size=12), site_lists, st.sampled_from([None, 0, 3]))
def test_many_changes_at_once_get_the_judgement_of_each_alone(
    decoded: list[dict[str, Any]], sites: Sites, first: int | None
) -> None:
    """What ``build`` asks of a block of lines, and ingest of an array body: the checks made
    for the whole batch (``ingest.fast.batch``) decide as ``fast_change`` does alone."""
    bodies = [json.dumps(obj) for obj in decoded]
    changes, lengths = [], []
    for body in bodies:
        try:
            changes.append(decode_change(body))
        except DecodeError:
            continue
        lengths.append(len(body))
    sent_at = NOW - timedelta(seconds=1)
    at_once = fast_changes(changes, lengths, sent_at, sites, NOW, first=first)
    each = [
        fast_change(change, None if first is None else first + n, sent_at, sites, NOW, length)
        for n, (change, length) in enumerate(zip(changes, lengths, strict=True))
    ]
    assert at_once == each


def test_a_typical_event_of_a_site_list_is_decided_by_the_fast_path() -> None:
    sites = SITE_LISTS[1]
    decoded = {
        "action": "upsert",
        "url": "https://www.example.de/schuhe/42",
        "occurred_at": "2026-11-20T10:00:01.250Z",
        "lastmod": "2026-11-20T10:00:00Z",
        "alternates": [
            {"hreflang": "de", "href": "https://www.example.de/schuhe/42"},
            {"hreflang": "en", "href": f"{SITE.origin}/shoes/42"},
        ],
        "section": "products",
    }
    body = json.dumps(decoded)
    event = _fast(body, None, sites)
    assert event is not None
    assert event.section == "products"
    assert (event,) == careful_decode_body(body, sent_at=NOW, site=sites, now=NOW).items


def test_the_changes_of_each_site_of_a_list_are_decided_together() -> None:
    """A block of a deployment of several sites: its changes on each site are decided with the
    others of that site, none asked of the one-change path, in the block's order."""
    sites = SITE_LISTS[1]
    urls = [
        "https://www.example.de/schuhe/1",
        f"{SITE.origin}/shoes/1",
        "https://www.example.de/schuhe/2",
        f"{SITE.origin}/shoes/2",
        "https://www.example.de/Schuhe/Größe 42",  # normalized, and still on its site
    ]
    bodies = [
        json.dumps({"action": "upsert", "url": url, "occurred_at": "2026-11-20T10:00:01Z"})
        for url in urls
    ]
    changes = [decode_change(body) for body in bodies]
    lengths = [len(body) for body in bodies]

    batch = decide_together(changes, lengths, None, sites, NOW)

    assert batch.alone == []
    assert [change[0] for change in batch.decided] == list(range(len(urls)))
    assert batch.decided[-1][1] == "https://www.example.de/Schuhe/Gr%C3%B6%C3%9Fe%2042"
    each = [
        fast_change(change, None, None, sites, NOW, n)
        for change, n in zip(changes, lengths, strict=True)
    ]
    assert fast_changes(changes, lengths, None, sites, NOW) == each
