"""The one repair of a News language that is not ambiguous: a full language tag cut to the
code Google's News sitemaps take.

Google's ``<news:language>`` is an ISO 639 code (``en``, ``fra``), or ``zh-cn`` / ``zh-tw`` for
Simplified and Traditional Chinese; sites often write the full tag of the page instead
(``en-US``, ``pt_BR``). A registered language tag (``tags``) names its language in its first
subtag, so ``en-US`` is ``en``. Chinese is the exception: the script says which of Google's two
codes it is (``zh-Hans`` is ``zh-cn``, ``zh-Hant-HK`` is ``zh-tw``), and so do the regions
``CN`` and ``TW``; any other Chinese tag (``zh-HK``) could be either and is not repaired, nor
is a tag with an extended language subtag (``zh-yue``, ``sgn-ase``).
"""

from __future__ import annotations

from typing import Final

from sitemap_updater.protocol.languages.tags import is_hreflang

#: What a Chinese subtag (script or region) says the News code is.
_CHINESE: Final = {"hans": "zh-cn", "cn": "zh-cn", "hant": "zh-tw", "tw": "zh-tw"}


def repaired_news_language(value: object) -> str | None:
    """The News language code a language tag ``value`` unambiguously stands for, or ``None``
    when there is none (not a registered tag, or Chinese without a script or region that says
    which). A value Google takes as it is gives itself, lowercase."""
    if not isinstance(value, str):
        return None
    tag = value.strip().replace("_", "-")
    if not tag or tag.lower() == "x-default" or not is_hreflang(tag):
        return None
    language, *rest = tag.lower().split("-")
    if len(language) > 3 or (rest and len(rest[0]) == 3 and rest[0].isalpha()):
        return None  # a long language subtag, or an extended one (``zh-yue``): no ISO 639 code
    if language != "zh":
        return language
    for subtag in rest:
        if subtag in _CHINESE:
            return _CHINESE[subtag]
    return None
