"""The hreflang rule agrees with ``langcodes`` on language tags of a language, a script and a
region: a tag passes exactly when ``langcodes`` finds it valid as written (the scripts and
regions drawn here are all registered, so the language decides). As written: ``langcodes``
would otherwise first replace an ISO 639-2 code such as ``ita`` by the registry's ``it``, a tag
BCP 47 does not register and the rule refuses."""

from __future__ import annotations

import string

import langcodes
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.protocol.languages.tags import is_hreflang, languages
from tests.property.strategies import SETTINGS

letters = st.text(st.sampled_from(string.ascii_letters), min_size=2, max_size=3)
languages = letters | st.sampled_from(sorted(languages()))
scripts = st.sampled_from(["", "-Hant", "-latn", "-CYRL", "-Arab"])
regions = st.sampled_from(["", "-GB", "-us", "-419", "-CH", "-BR", "-001"])


@SETTINGS
@given(languages, scripts, regions)
def test_a_tag_passes_when_langcodes_finds_it_valid(
    language: str, script: str, region: str
) -> None:
    tag = language + script + region
    try:
        valid = langcodes.Language.get(tag, normalize=False).is_valid()
    except langcodes.LanguageTagError:
        valid = False
    assert is_hreflang(tag) == valid
