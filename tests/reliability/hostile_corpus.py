"""Hostile and broken SQS message bodies, each with the outcome it must get.

Site under test: ``https://www.example.com`` (``CASES``), and for the spellings of a host that is
itself an IDN, ``https://bücher.example`` (``IDN_SITE_CASES``). Every case is one raw message body
(sent as is).
``expect`` is ``"accepted"`` (applied, published escaped) or ``"rejected"`` (dead-lettered at once
with a reason that names ``field``). Array bodies may be ``"partial"``: the valid entries are
applied
and the bad ones rejected, each named by its index.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

SITE = "https://www.example.com"
Expect = Literal["accepted", "rejected", "partial"]


@dataclass(frozen=True)
class Case:
    name: str
    body: str
    expect: Expect
    #: the field the rejection reason must name ("a|b": either word)
    field: str = ""
    #: normalized URLs that must be published after the case is applied
    published: tuple[str, ...] = ()
    #: for "partial": array indexes that must be named in the reason
    bad_indexes: tuple[int, ...] = ()


def _up(url: str, **extra: Any) -> dict[str, Any]:
    return {"action": "upsert", "url": url, "occurred_at": "2026-11-20T10:00:00Z", **extra}


def _j(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _fullwidth(text: str) -> str:
    """``text`` with every ASCII letter and '.' in its full-width form (U+FF01 to U+FF5E)."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isalpha() or c == "." else c for c in text)


def _nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def build_cases() -> list[Case]:
    u = SITE + "/hostile/"
    cases: list[Case] = []
    add = cases.append

    # --- XML injection in every field: accepted, escaped on output -----------------------------
    add(Case("xml-in-path", _j(_up(u + "a</loc><loc>x")), "accepted"))
    add(Case("xml-in-query", _j(_up(u + "q?a=<b>&c='d'&e=\"f\"")), "accepted"))
    add(Case("cdata-in-query", _j(_up(u + "q?x=<![CDATA[boom]]>")), "accepted"))
    add(Case("entity-in-query", _j(_up(u + "q?x=&amp;&lt;&#x3C;")), "accepted"))
    add(
        Case(
            "doctype-in-path",
            _j(_up(u + "<!DOCTYPE[<!ENTITY/e/SYSTEM/'file:///etc/passwd'>]>")),
            "accepted",
        )
    )
    # spaces are percent-encoded like any character RFC 3986 does not allow
    add(
        Case(
            "doctype-with-spaces",
            _j(_up(u + "<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>")),
            "accepted",
        )
    )
    add(
        Case(
            "injection-in-hreflang",
            _j(_up(u + "alt1", alternates=[{"hreflang": 'de"><x', "href": u + "alt1-de"}])),
            "rejected",
            field="hreflang",
        )
    )
    add(
        Case(
            "injection-in-alternate-href",
            _j(_up(u + "alt2", alternates=[{"hreflang": "de", "href": u + 'de?a="/><x>&'}])),
            "accepted",
        )
    )
    add(
        Case(
            "injection-in-image",
            _j(
                _up(
                    u + "img1", images=[{"loc": "https://cdn.example.net/a.jpg?x=</image:loc><b>&"}]
                )
            ),
            "accepted",
        )
    )
    add(
        Case(
            "injection-in-changefreq",
            _j(_up(u + "cf", changefreq="daily</changefreq><x>")),
            "rejected",
            field="changefreq",
        )
    )
    add(
        Case(
            "injection-in-lastmod",
            _j(_up(u + "lm", lastmod="2026-01-01</lastmod>")),
            "rejected",
            field="lastmod",
        )
    )
    add(
        Case(
            "injection-in-action",
            _j({"action": "upsert<x/>", "url": u + "act"}),
            "rejected",
            field="action",
        )
    )
    add(
        Case(
            "xml-body-not-json",
            "<?xml version='1.0'?><url><loc>https://www.example.com/</loc></url>",
            "rejected",
            field="message",
        )
    )

    # --- control characters and lone surrogates ------------------------------------------------
    add(Case("nul-in-url", _j(_up(u + "a\u0000b")), "rejected", field="url"))
    add(Case("vertical-tab-in-url", _j(_up(u + "a\u000bb")), "rejected", field="url"))
    add(Case("newline-in-url", _j(_up(u + "a\nb")), "rejected", field="url"))
    add(
        Case(
            "control-in-hreflang",
            _j(_up(u + "ctl", alternates=[{"hreflang": "d\u0001e", "href": u + "ctl-de"}])),
            "rejected",
            field="hreflang",
        )
    )
    add(
        Case(
            "lone-surrogate-in-url",
            '{"action":"upsert","url":"' + u + 'x\\ud800y"}',
            "rejected",
            field="url",
        )
    )
    add(
        Case(
            "lone-surrogate-in-changefreq",
            '{"action":"upsert","url":"' + u + 'ls","changefreq":"\\udfff"}',
            "rejected",
            field="changefreq",
        )
    )
    add(Case("bom-prefixed-body", "\ufeff" + _j(_up(u + "bom")), "rejected", field="message"))

    # --- length at the edge (after encoding) ---------------------------------------------------
    head = SITE + "/"
    add(Case("url-2048-chars", _j(_up(head + "a" * (2048 - len(head)))), "accepted"))
    add(Case("url-2049-chars", _j(_up(head + "a" * (2049 - len(head)))), "rejected", field="url"))
    # 'é' becomes '%C3%A9' (6 chars): 2,040 chars raw, more than 2,048 once encoded
    add(
        Case(
            "url-over-2048-after-encoding",
            _j(_up(head + "é" * ((2048 - len(head)) // 2))),
            "rejected",
            field="url",
        )
    )
    add(Case("url-too-short", _j(_up("http://a.b/")), "rejected", field="url"))

    # --- schemes and URL forms -----------------------------------------------------------------
    for name, bad in [
        ("javascript-url", "javascript:alert(1)"),
        ("ftp-url", "ftp://www.example.com/file"),
        ("relative-url", "/relative/path"),
        ("protocol-relative-url", "//www.example.com/x"),
        ("data-url", "data:text/html,<script>1</script>"),
        ("mailto-url", "mailto:someone@example.com"),
        ("empty-url", ""),
        ("url-without-host", "https:///path"),
        ("url-with-spaces-only", "   "),
    ]:
        add(Case(name, _j(_up(bad)), "rejected", field="url"))
    add(
        Case(
            "userinfo-in-url",
            _j(_up("https://user:pass@www.example.com/x")),
            "rejected",
            field="url",
        )
    )
    add(Case("userinfo-at-only", _j(_up("https://@www.example.com/x")), "rejected", field="url"))

    # --- hosts -----------------------------------------------------------------------------------
    add(
        Case(
            "mixed-case-host",
            _j(_up("HTTPS://WWW.Example.COM/Mixed/Case")),
            "accepted",
            published=(SITE + "/Mixed/Case",),
        )
    )
    add(
        Case(
            "default-port",
            _j(_up("https://www.example.com:443/port")),
            "accepted",
            published=(SITE + "/port",),
        )
    )
    # the site's own host written as an IDN (full-width letters, ideographic full stops) or in
    # mixed case: UTS #46 maps it onto www.example.com, so the page is the site's
    add(
        Case(
            "idn-fullwidth-site-host",
            _j(_up(f"https://{_fullwidth('www.example.com')}/idn/fw")),
            "accepted",
            published=(SITE + "/idn/fw",),
        )
    )
    add(
        Case(
            "idn-ideographic-dots-site-host",
            _j(_up("https://www\u3002example\uff0ecom/idn/dots")),
            "accepted",
            published=(SITE + "/idn/dots",),
        )
    )
    add(
        Case(
            "idn-mixed-case-fullwidth-site-host",
            _j(_up(f"https://WWW.{_fullwidth('EXAMPLE')}.Com/idn/Mixed")),
            "accepted",
            published=(SITE + "/idn/Mixed",),
        )
    )
    add(Case("idn-foreign-host", _j(_up("https://bücher.example/x")), "rejected", field="url"))
    # a look-alike: Cyrillic 'е' (U+0435) in place of 'e' is another host, not the site
    add(
        Case(
            "idn-homograph-of-site-host",
            _j(_up("https://www.\u0435xample.com/x")),
            "rejected",
            field="url",
        )
    )
    add(Case("foreign-host", _j(_up("https://evil.example.org/x")), "rejected", field="url"))
    add(Case("foreign-port", _j(_up("https://www.example.com:8443/x")), "rejected", field="url"))
    add(Case("foreign-scheme", _j(_up("http://www.example.com/x")), "rejected", field="url"))
    add(
        Case(
            "lookalike-host", _j(_up("https://www.example.com.evil.org/x")), "rejected", field="url"
        )
    )
    add(
        Case(
            "foreign-alternate",
            _j(
                _up(
                    u + "fa", alternates=[{"hreflang": "fr", "href": "https://evil.example.org/fr"}]
                )
            ),
            "rejected",
            field="href",
        )
    )

    # --- arrays and sizes ------------------------------------------------------------------------
    add(
        Case(
            "array-too-large", _j([_up(u + f"big{i}") for i in range(501)]), "rejected", field="500"
        )
    )
    add(Case("array-of-500", _j([_up(u + f"ok{i}") for i in range(500)]), "accepted"))
    add(
        Case(
            "array-mixed",
            _j([_up(u + "mix-ok"), {"action": "explode"}, _up("ftp://x/y")]),
            "partial",
            bad_indexes=(1, 2),
        )
    )
    add(Case("empty-array", "[]", "rejected", field="body|array|event"))
    add(Case("array-of-non-objects", '[1, "two", null]', "partial", bad_indexes=(0, 1, 2)))
    # a valid array body just under SQS's 256 KiB message limit, and one cut at the limit
    fat = _j([_up(u + f"fat{i}-" + "f" * 400) for i in range(500)])
    while len(fat.encode()) > 256 * 1024:
        fat = _j(json.loads(fat)[:-1])
    add(Case("body-near-256kb", fat, "accepted"))
    add(
        Case(
            "body-256kb-truncated",
            (fat + " " * 256 * 1024)[: 256 * 1024 - 1].rstrip()[:-3],
            "rejected",
            field="message",
        )
    )
    add(
        Case(
            "too-many-images",
            _j(
                _up(
                    u + "imgs",
                    images=[{"loc": f"https://cdn.example.net/{i}"} for i in range(1001)],
                )
            ),
            "rejected",
            field="images",
        )
    )

    # --- types -----------------------------------------------------------------------------------
    add(Case("priority-as-string", _j(_up(u + "ps", priority="0.8")), "rejected", field="priority"))
    add(Case("priority-word", _j(_up(u + "pw", priority="high")), "rejected", field="priority"))
    add(Case("priority-bool", _j(_up(u + "pb", priority=True)), "rejected", field="priority"))
    add(Case("priority-too-high", _j(_up(u + "p15", priority=1.5)), "rejected", field="priority"))
    add(Case("priority-negative", _j(_up(u + "pn", priority=-0.1)), "rejected", field="priority"))
    add(
        Case(
            "priority-nan",
            '{"action":"upsert","url":"' + u + 'nan","priority":NaN}',
            "rejected",
            field="priority",
        )
    )
    add(
        Case(
            "priority-infinity",
            '{"action":"upsert","url":"' + u + 'inf","priority":Infinity}',
            "rejected",
            field="priority",
        )
    )
    add(
        Case(
            "priority-huge-exponent",
            '{"action":"upsert","url":"' + u + 'exp","priority":1e999}',
            "rejected",
            field="priority",
        )
    )
    add(Case("url-as-number", _j({"action": "upsert", "url": 42}), "rejected", field="url"))
    add(
        Case("url-as-list", _j({"action": "upsert", "url": [SITE + "/a"]}), "rejected", field="url")
    )
    add(
        Case(
            "alternates-as-object",
            _j(_up(u + "ao", alternates={"hreflang": "de"})),
            "rejected",
            field="alternates",
        )
    )
    add(
        Case(
            "changefreq-unknown",
            _j(_up(u + "cfu", changefreq="sometimes")),
            "rejected",
            field="changefreq",
        )
    )
    add(
        Case(
            "changefreq-uppercase",
            _j(_up(u + "cfU", changefreq="DAILY")),
            "rejected",
            field="changefreq",
        )
    )

    # --- dates -----------------------------------------------------------------------------------
    add(
        Case(
            "lastmod-no-zone",
            _j(_up(u + "nz", lastmod="2026-11-20T10:00:00")),
            "rejected",
            field="lastmod",
        )
    )
    add(
        Case(
            "lastmod-bad-offset",
            _j(_up(u + "bo", lastmod="2026-11-20T10:00:00+25:00")),
            "rejected",
            field="lastmod",
        )
    )
    add(
        Case(
            "lastmod-year-10000",
            _j(_up(u + "y10k", lastmod="10000-01-01")),
            "rejected",
            field="lastmod",
        )
    )
    add(
        Case(
            "lastmod-far-future",
            _j(_up(u + "fut", lastmod="2999-01-01")),
            "rejected",
            field="lastmod",
        )
    )
    add(
        Case(
            "lastmod-not-a-date",
            _j(_up(u + "nad", lastmod="yesterday")),
            "rejected",
            field="lastmod",
        )
    )
    add(
        Case(
            "lastmod-feb-30", _j(_up(u + "f30", lastmod="2026-02-30")), "rejected", field="lastmod"
        )
    )
    add(
        Case(
            "lastmod-fraction-and-offset",
            _j(_up(u + "frac", lastmod="2026-11-20T10:00:00.123+02:00")),
            "accepted",
        )
    )
    # --- injection in occurred_at and priority: never published, so rejected whole ------------
    for name, bad in [
        ("injection-in-occurred-at", "2026-11-20T10:00:00Z</lastmod><x>"),
        ("cdata-in-occurred-at", "<![CDATA[2026-11-20T10:00:00Z]]>"),
        ("entity-in-occurred-at", "2026-11-20T10:00:00&#x5A;"),
        ("doctype-in-occurred-at", "<!DOCTYPE x [<!ENTITY e 'Z'>]>2026-11-20T10:00:00Z"),
    ]:
        add(
            Case(
                name,
                _j({"action": "upsert", "url": u + name, "occurred_at": bad}),
                "rejected",
                field="occurred_at",
            )
        )
    for name, bad in [
        ("injection-in-priority", "0.5</priority><x>"),
        ("cdata-in-priority", "<![CDATA[0.5]]>"),
        ("entity-in-priority", "&#48;.5"),
        ("doctype-in-priority", "<!DOCTYPE x [<!ENTITY e '0.5'>]>&e;"),
    ]:
        add(Case(name, _j(_up(u + name, priority=bad)), "rejected", field="priority"))
    add(
        Case(
            "occurred-at-no-zone",
            _j({"action": "upsert", "url": u + "oz", "occurred_at": "2026-11-20T10:00:00"}),
            "rejected",
            field="occurred_at",
        )
    )

    # --- news and videos: escaped when accepted, each bad value rejected with its field -------
    # Accepted articles are dated long before any run, so they are in the regular sitemap only
    # (the news window is tested with a set clock in tests/integration/rebuild/test_news_files.py).
    def news(**extra: Any) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "publication": {"name": "The Example Times", "language": "en"},
            "publication_date": "2020-01-02T03:04:05Z",
            "title": "A title",
        }
        return {**fields, **extra}

    def video(**extra: Any) -> dict[str, Any]:
        fields = {
            "thumbnail_loc": "https://cdn.example.net/t.jpg",
            "title": "A video",
            "description": "What it shows",
            "content_loc": "https://cdn.example.net/v.mp4",
        }
        return {**fields, **extra}

    add(
        Case(
            "news-title-injection",
            _j(_up(u + "n1", news=news(title="</news:title><news:x>&amp;<![CDATA[x]]>"))),
            "accepted",
        )
    )
    add(
        Case(
            "news-name-injection",
            _j(_up(u + "n2", news=news(publication={"name": "A & B <Times>", "language": "de"}))),
            "accepted",
        )
    )
    add(
        Case(
            "video-description-injection",
            _j(_up(u + "v1", videos=[video(description="<script>alert('x')</script> & \"q\"")])),
            "accepted",
        )
    )
    add(
        Case(
            "video-tag-doctype",
            _j(_up(u + "v2", videos=[video(tag=["<!DOCTYPE x [<!ENTITY e 'x'>]>&e;"])])),
            "accepted",
        )
    )
    add(
        Case(
            "video-uploader-injection",
            _j(_up(u + "v3", videos=[video(uploader={"name": 'Me"/><x y="', "info": u + "me"})])),
            "accepted",
        )
    )
    add(Case("news-title-empty", _j(_up(u + "n3", news=news(title=""))), "rejected", "title"))
    add(Case("news-title-blank", _j(_up(u + "n4", news=news(title="  \t "))), "rejected", "title"))
    add(
        Case(
            "news-title-too-long",
            _j(_up(u + "n5", news=news(title="t" * 1025))),
            "rejected",
            "title",
        )
    )
    add(
        Case(
            "news-title-control-char",
            _j(_up(u + "n6", news=news(title="bell\u0007"))),
            "rejected",
            field="title",
        )
    )
    add(
        Case(
            "news-name-too-long",
            _j(_up(u + "n7", news=news(publication={"name": "n" * 257, "language": "en"}))),
            "rejected",
            field="name",
        )
    )
    for name, language in [("news-language-word", "english"), ("news-language-region", "en-GB")]:
        add(
            Case(
                name,
                _j(_up(u + name, news=news(publication={"name": "X", "language": language}))),
                "rejected",
                field="language",
            )
        )
    add(
        Case(
            "news-language-number",
            _j(_up(u + "n8", news=news(publication={"name": "X", "language": 12}))),
            "rejected",
            field="language",
        )
    )
    for name, date in [
        ("news-date-far-future", "2999-01-01T00:00:00Z"),
        ("news-date-before-1970", "1969-12-31"),
        ("news-date-no-zone", "2026-11-20T10:00:00"),
        ("news-date-word", "today"),
    ]:
        add(
            Case(
                name,
                _j(_up(u + name, news=news(publication_date=date))),
                "rejected",
                field="publication_date",
            )
        )
    add(Case("news-not-an-object", _j(_up(u + "n9", news="breaking")), "rejected", field="news"))
    add(
        Case(
            "news-deprecated-keywords",
            _j(_up(u + "n10", news=news(keywords="a, b"))),
            "rejected",
            field="keywords",
        )
    )
    add(
        Case(
            "video-description-too-long",
            _j(_up(u + "v4", videos=[video(description="d" * 2049)])),
            "rejected",
            field="description",
        )
    )
    for name, duration in [("video-duration-zero", 0), ("video-duration-9h", 28_801)]:
        add(
            Case(
                name,
                _j(_up(u + name, videos=[video(duration=duration)])),
                "rejected",
                field="duration",
            )
        )
    add(
        Case(
            "video-duration-string",
            _j(_up(u + "v5", videos=[video(duration="600")])),
            "rejected",
            field="duration",
        )
    )
    add(
        Case(
            "video-33-tags",
            _j(_up(u + "v6", videos=[video(tag=[f"t{i}" for i in range(33)])])),
            "rejected",
            field="tag",
        )
    )
    add(
        Case(
            "video-no-content-or-player",
            _j(_up(u + "v7", videos=[{k: v for k, v in video().items() if k != "content_loc"}])),
            "rejected",
            field="videos",
        )
    )
    add(
        Case(
            "video-content-is-the-page",
            _j(_up(u + "v8", videos=[video(content_loc=u + "v8")])),
            "rejected",
            field="content_loc",
        )
    )
    add(
        Case(
            "video-family-friendly-yes-string",
            _j(_up(u + "v9", videos=[video(family_friendly="yes")])),
            "rejected",
            field="family_friendly",
        )
    )
    add(
        Case(
            "video-deprecated-price",
            _j(_up(u + "v10", videos=[video(price="1.99")])),
            "rejected",
            field="price",
        )
    )
    add(
        Case(
            "video-restriction-bad-country",
            _j(
                _up(
                    u + "v11",
                    videos=[video(restriction={"relationship": "allow", "countries": ["GBR"]})],
                )
            ),
            "rejected",
            field="countries",
        )
    )
    add(
        Case(
            "video-title-control-char",
            _j(_up(u + "v12", videos=[video(title="nul\u0000")])),
            "rejected",
            field="title",
        )
    )
    add(
        Case(
            "video-expiration-not-a-date",
            _j(_up(u + "v13", videos=[video(expiration_date="soon")])),
            "rejected",
            field="expiration_date",
        )
    )

    # --- actions and missing fields ---
    add(
        Case("unknown-action", _j({"action": "purge", "url": u + "ua"}), "rejected", field="action")
    )
    add(Case("missing-action", _j({"url": u + "ma"}), "rejected", field="action"))
    add(Case("missing-url", _j({"action": "upsert"}), "rejected", field="url"))
    add(Case("delete-missing-url", _j({"action": "delete"}), "rejected", field="url"))
    add(Case("null-body", "null", "rejected", field="message"))
    add(Case("empty-body", "", "rejected", field="message"))
    add(Case("truncated-json", _j(_up(u + "trunc"))[:-5], "rejected", field="message"))
    add(
        Case(
            "eventbridge-without-detail",
            _j(
                {
                    "version": "0",
                    "id": "1",
                    "source": "cms",
                    "detail-type": "PageChanged",
                    "account": "1",
                    "time": "2026-11-20T10:00:00Z",
                    "region": "us-east-1",
                    "resources": [],
                }
            ),
            "rejected",
            field="detail|action",
        )
    )

    # --- deep nesting ---
    add(Case("deeply-nested-json", _nested(40_000), "rejected", field="message"))
    # unknown fields are ignored (producers may add fields), however deep they nest
    add(
        Case(
            "nested-in-field",
            _j(_up(u + "nf")).replace('"occurred_at"', '"extra":' + _nested(50) + ',"occurred_at"'),
            "accepted",
        )
    )
    return cases


#: A site whose own host is an IDN: configured in Unicode, published in punycode (IDNA 2008).
IDN_SITE = "https://bücher.example"
IDN_SITE_ASCII = "https://xn--bcher-kva.example"


def build_idn_site_cases() -> list[Case]:
    """Bodies for the site ``IDN_SITE``: each spelling of its host lands on the punycode one."""
    cases: list[Case] = []
    add = cases.append
    for name, url, published in [
        ("idn-site-unicode-host", "https://bücher.example/katalog/1", "/katalog/1"),
        ("idn-site-upper-case-unicode-host", "https://BÜCHER.Example/katalog/2", "/katalog/2"),
        ("idn-site-punycode-host", "https://xn--bcher-kva.example/katalog/3", "/katalog/3"),
        ("idn-site-upper-case-punycode", "https://XN--BCHER-KVA.EXAMPLE/katalog/4", "/katalog/4"),
        (
            "idn-site-fullwidth-dot-and-port",
            "https://bücher\uff0eexample:443/katalog/5",
            "/katalog/5",
        ),
        (
            "idn-site-unicode-path-and-query",
            "https://bücher.example/bücher?titel=Straße",
            "/b%C3%BCcher?titel=Stra%C3%9Fe",
        ),
    ]:
        add(Case(name, _j(_up(url)), "accepted", published=(IDN_SITE_ASCII + published,)))
    add(
        Case(
            "idn-site-alternate-in-unicode",
            _j(
                _up(
                    "https://bücher.example/katalog/6",
                    alternates=[{"hreflang": "en", "href": "https://BÜCHER.example/en/katalog/6"}],
                )
            ),
            "accepted",
            published=(IDN_SITE_ASCII + "/katalog/6",),
        )
    )
    for name, url in [
        ("idn-site-without-umlaut", "https://bucher.example/x"),
        ("idn-site-as-subdomain-of-foreign", "https://bücher.example.evil.org/x"),
        ("idn-site-other-umlaut", "https://böcher.example/x"),
        ("idn-site-invalid-label", "https://bü--cher-.example/x"),
    ]:
        add(Case(name, _j(_up(url)), "rejected", field="url"))
    return cases


CASES = build_cases()
IDN_SITE_CASES = build_idn_site_cases()
