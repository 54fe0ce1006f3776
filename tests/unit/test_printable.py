"""Text from outside is printed one line, with control and format characters escaped."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.printable import ESCAPED_CATEGORIES, printable


def test_newlines_escape_sequences_and_bidi_controls_are_escaped() -> None:
    text = "a.csv\nb.csv:1: forged\x1b[31m\r\t\u202eevil\u2066\u200b\u2028\x85"
    assert printable(text) == (
        "a.csv\\x0ab.csv:1: forged\\x1b[31m\\x0d\\x09\\u202eevil\\u2066\\u200b\\u2028\\x85"
    )


def test_letters_of_any_script_and_the_marks_stay_as_they_are() -> None:
    text = "/ünïcode/Ελληνικά/日本語/עברית \u00a0€"
    assert printable(text) == text


def test_other_values_are_printed_as_their_text() -> None:
    assert printable(ValueError("bad\nline")) == "bad\\x0aline"


_ESCAPE = re.compile(r"\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8}))")


@given(st.text())
def test_nothing_escaped_is_left_and_the_escapes_give_the_text_back(text: str) -> None:
    shown = printable(text)
    assert all(unicodedata.category(c) not in ESCAPED_CATEGORIES for c in shown)
    if "\\" not in text:  # a backslash of the text itself is kept as it is
        assert _ESCAPE.sub(lambda m: chr(int(next(g for g in m.groups() if g), 16)), shown) == text
