"""What ``status`` groups dead letters by: the field and rule the ingest function wrote, read from
the ``rejections`` attribute, or from the ``reason`` line of a message written before it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.dlq import (
    REASON_ATTRIBUTE,
    REJECTIONS_ATTRIBUTE,
    kind,
    reason_line,
    rejection_kinds,
    rejections_attribute,
)
from sitemap_updater.ingest.rejection import MISSING, Rejection

RULE = "must be a W3C datetime"


def _attributes(rejections: list[Rejection]) -> dict[str, str]:
    return {
        REASON_ATTRIBUTE: reason_line(rejections),
        REJECTIONS_ATTRIBUTE: rejections_attribute(rejections),
    }


def test_a_long_value_holding_the_separator_does_not_become_the_rule() -> None:
    value = "x rejected: forged rule; field url value 1 rejected: another" + "!" * 300
    rejections = [Rejection(0, "lastmod", value, RULE), Rejection(1, "url", MISSING, "required")]
    expected = [kind("lastmod", RULE), kind("url", "required")]

    assert rejection_kinds(_attributes(rejections)) == expected


def test_a_reason_of_control_characters_and_escapes_is_grouped_by_its_rule() -> None:
    rejections = [Rejection(None, "news.title", "\x1b]0;owned\x07\u202e\n" * 20, RULE)]
    assert rejection_kinds(_attributes(rejections)) == [kind("news.title", RULE)]


def test_a_broken_rejections_attribute_names_no_kind() -> None:
    """The reason is for people: its text is never parsed back into kinds."""
    rejections = [Rejection(None, "lastmod", "soon", RULE)]
    attributes = {REASON_ATTRIBUTE: reason_line(rejections), REJECTIONS_ATTRIBUTE: "[{"}
    assert rejection_kinds(attributes) == []


@given(
    st.lists(
        st.tuples(st.sampled_from(["url", "lastmod", "news.title"]), st.text()),
        min_size=1,
        max_size=5,
    )
)
def test_the_kinds_are_fields_and_rules_whatever_the_value(
    pairs: list[tuple[str, str]],
) -> None:
    rejections = [Rejection(i, field, value, RULE) for i, (field, value) in enumerate(pairs)]
    kinds = [kind(field, RULE) for field, _ in pairs]
    assert rejection_kinds(_attributes(rejections)) == kinds
