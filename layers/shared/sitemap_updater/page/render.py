"""The one ``<url>`` renderer: a judged page as the text of its element.

Every ``<url>`` this project writes is :func:`url_element`'s (in a News file,
:func:`news_element`'s): one line, its children in sitemap.xsd's order (the protocol's four
fields, then the extensions in the page's field order), every text escaped. The page is judged
(``page.normalize``): its values are in normalized form, so nothing is checked here but what
XML itself needs (a judged value holds nothing to escape but where it is free text or a URL). The
protocol's single values are each an element of its field's name, and a text field whose
declaration names its element (``page.model``) that element, with its namespace declared on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from sitemap_updater.page.model import (
    EXTENSION_TEXTS,
    PROTOCOL_VALUES,
    News,
    Page,
    Platform,
    Restriction,
    Video,
)
from sitemap_updater.protocol.escape import escape


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _video(video: Video) -> str:
    parts = [
        "<video:video><video:thumbnail_loc>",
        escape(video.thumbnail_loc),
        "</video:thumbnail_loc><video:title>",
        escape(video.title),
        "</video:title><video:description>",
        escape(video.description),
        "</video:description>",
    ]
    for name in ("content_loc", "player_loc"):
        value = getattr(video, name)
        if value is not None:
            parts.append(f"<video:{name}>{escape(value)}</video:{name}>")
    if video.duration is not None:
        parts.append(f"<video:duration>{video.duration}</video:duration>")
    for name in ("expiration_date", "publication_date"):
        value = getattr(video, name)
        if value is not None:
            parts.append(f"<video:{name}>{value}</video:{name}>")
    parts += [f"<video:tag>{escape(tag)}</video:tag>" for tag in video.tag]
    if video.family_friendly is not None:
        parts.append(
            f"<video:family_friendly>{_yes_no(video.family_friendly)}</video:family_friendly>"
        )
    if video.restriction is not None:
        parts.append(_relationship("restriction", video.restriction))
    if video.requires_subscription is not None:
        flag = _yes_no(video.requires_subscription)
        parts.append(f"<video:requires_subscription>{flag}</video:requires_subscription>")
    uploader = video.uploader
    if uploader is not None:
        info = "" if uploader.info is None else f' info="{escape(uploader.info)}"'
        parts.append(f"<video:uploader{info}>{escape(uploader.name)}</video:uploader>")
    if video.platform is not None:
        parts.append(_relationship("platform", video.platform))
    if video.live is not None:
        parts.append(f"<video:live>{_yes_no(video.live)}</video:live>")
    parts.append("</video:video>")
    return "".join(parts)


def _relationship(name: str, value: Restriction | Platform) -> str:
    codes = value.countries if isinstance(value, Restriction) else value.platforms
    return f'<video:{name} relationship="{value.relationship}">{" ".join(codes)}</video:{name}>'


def _news(news: News) -> str:
    """``<news:news>`` in the element order of Google's schema."""
    return (
        "<news:news><news:publication>"
        f"<news:name>{escape(news.publication.name)}</news:name>"
        f"<news:language>{news.publication.language}</news:language></news:publication>"
        f"<news:publication_date>{news.publication_date}</news:publication_date>"
        f"<news:title>{escape(news.title)}</news:title></news:news>"
    )


def _text_element(element: str, namespace: str) -> Callable[[Any], str]:
    """The renderer of a text field whose declaration names its element and namespace."""
    prefix = element.partition(":")[0]
    return lambda value: f'<{element} xmlns:{prefix}="{namespace}">{escape(value)}</{element}>'


def _extras() -> tuple[tuple[str, Callable[[Any], str]], ...]:
    """The renderers of the fields after the images, in field order (the news article is the
    News files' alone)."""
    renderers: list[tuple[str, Callable[[Any], str]]] = []
    names = list(Page.__struct_fields__)
    for name in names[names.index("images") + 1 :]:
        if name == "videos":
            renderers.append((name, lambda videos: "".join(map(_video, videos))))
        elif name in EXTENSION_TEXTS:
            renderers.append((name, _text_element(*EXTENSION_TEXTS[name])))
    return tuple(renderers)


_EXTRAS: Final = _extras()
#: The protocol's single values, each an element of its field's name (``page.model``).
_VALUES: Final = tuple((name, f"<{name}>", f"</{name}>") for name in PROTOCOL_VALUES)


def url_element(page: Page) -> str:
    """The ``<url>`` element of a judged page in a regular sitemap file, with its line break."""
    parts = ["<url><loc>", escape(page.url), "</loc>"]
    for name, opening, closing in _VALUES:
        value = getattr(page, name)
        if value is not None:
            parts += (opening, str(value), closing)
    for alternate in page.alternates:
        parts.append(
            f'<xhtml:link rel="alternate" hreflang="{alternate.hreflang}" '
            f'href="{escape(alternate.href)}"/>'
        )
    for image in page.images:
        parts.append(f"<image:image><image:loc>{escape(image.loc)}</image:loc></image:image>")
    for name, render in _EXTRAS:
        value = getattr(page, name)
        if value is not None and value != ():
            parts.append(render(value))
    parts.append("</url>\n")
    return "".join(parts)


def news_element(page: Page) -> str:
    """The ``<url>`` element of a judged page that carries a news article, in a News file."""
    assert page.news is not None
    return f"<url><loc>{escape(page.url)}</loc>{_news(page.news)}</url>\n"
