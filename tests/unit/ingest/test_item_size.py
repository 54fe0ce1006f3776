"""Item sizes by DynamoDB's published rules (names + values, list/map overheads)."""

from __future__ import annotations

import pytest

from sitemap_updater.ingest.item_size import item_size, value_size


@pytest.mark.parametrize(
    ("value", "size"),
    [
        ({"S": "abc"}, 3),
        ({"S": "é"}, 2),  # UTF-8 bytes, not characters
        ({"S": "日本"}, 6),
        ({"N": "7"}, 2),  # 1 significant digit: 1 + 1
        ({"N": "123.45"}, 4),  # 5 significant digits: 3 + 1
        ({"N": "1795176000000"}, 5),  # zeros trimmed: 7 significant digits, 4 + 1
        ({"BOOL": True}, 1),
        ({"NULL": True}, 1),
        ({"L": []}, 3),
        ({"L": [{"S": "ab"}, {"S": "c"}]}, 3 + (1 + 2) + (1 + 1)),
        ({"M": {"hreflang": {"S": "de"}}}, 3 + 1 + len("hreflang") + 2),
    ],
)
def test_value_sizes(value: dict[str, object], size: int) -> None:
    assert value_size(value) == size


def test_item_size_counts_every_attribute_name() -> None:
    item = {"pk": {"S": "u#a"}, "sk": {"S": "a" * 32}, "images": {"L": [{"S": "x" * 10}]}}
    assert item_size(item) == (2 + 3) + (2 + 32) + (6 + 3 + 1 + 10)


def test_unknown_type_is_an_error() -> None:
    with pytest.raises(ValueError, match="XX"):
        value_size({"XX": 1})
