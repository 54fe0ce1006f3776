"""Reasons are one printable line that names field, value and rule, and stay bounded."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.dlq import (
    MAX_REASON_CHARS,
    REJECTIONS_ATTRIBUTE,
    bad_changes_body,
    describe,
    reason_line,
    rejection_kinds,
    rejections_attribute,
    render_value,
    sendable,
)
from sitemap_updater.ingest.rejection import MISSING, Rejection


def test_describe_names_index_field_value_and_rule() -> None:
    text = describe(Rejection(3, "priority", "0.8", "must be a number"))
    assert text == 'change 3: field priority value "0.8" rejected: must be a number'


def test_missing_value_is_named() -> None:
    assert render_value(MISSING) == "(missing)"


def test_long_values_are_cut_with_their_length() -> None:
    shown = render_value("x" * 5000)
    assert len(shown) < 200
    assert "(5002 chars)" in shown


def test_unsendable_characters_are_escaped() -> None:
    assert sendable("a\ud800b\x00c\ufffe") == "a\\ud800b\\u0000c\\ufffe"
    assert sendable("tab\tnewline\n é 😀") == "tab\tnewline\n é 😀"


def test_reason_line_is_capped_and_counts_the_rest() -> None:
    many = [
        Rejection(i, "url", "https://evil.example.org/" + "p" * 80, "foreign") for i in range(500)
    ]
    line = reason_line(many)
    assert len(line) <= MAX_REASON_CHARS
    assert line.startswith("change 0: field url")
    kept = line.count("change ")
    assert line.endswith(f"and {500 - kept} more rejected changes (see the message body)")


def test_bad_changes_body_keeps_index_entry_and_reason() -> None:
    rejection = Rejection(2, "action", "purge", "unknown", raw={"action": "purge"})
    assert json.loads(bad_changes_body([rejection])) == [
        {"index": 2, "change": {"action": "purge"}, "reason": describe(rejection)}
    ]


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=5,
)
_RULES = st.sampled_from(
    ["must be a number", "scheme 'ftp' is not allowed", "must be one of: a; b", "too long"]
)


@given(
    st.lists(
        st.tuples(
            st.none() | st.integers(0, 499),
            st.sampled_from(["url", "lastmod", "news.title", "priority"]),
            _VALUES | st.just(MISSING),
            _RULES,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_the_rejections_attribute_names_each_field_and_rule_whatever_the_value(
    parts: list[tuple[int | None, str, object, str]],
) -> None:
    rejections = [Rejection(index, field, value, rule) for index, field, value, rule in parts]
    attributes = {REJECTIONS_ATTRIBUTE: rejections_attribute(rejections)}
    assert rejection_kinds(attributes) == [f"field {field}: {rule}" for _, field, _, rule in parts]
