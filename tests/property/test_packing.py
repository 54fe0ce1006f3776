"""The packer's own count of the bytes it holds is the UTF-8 length of the bodies it builds,
and its bodies hold every change once, in order, within the limits."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_updater.producer.packing import ArrayPacker, Body, encode_change

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=400)
CHANGES = st.lists(
    st.fixed_dictionaries({"action": st.just("upsert"), "url": TEXT}, optional={"note": TEXT}),
    max_size=60,
)


def _bytes(bodies: list[Body]) -> int:
    return sum(len(body.text.encode("utf-8")) for body in bodies)


@settings(max_examples=200, deadline=None)
@given(
    changes=CHANGES,
    max_changes=st.integers(1, 7),
    max_bytes=st.integers(2500, 4000),
    take_closed_every=st.integers(0, 9),
    take_all_every=st.integers(0, 13),
)
def test_bodies_are_exactly_as_large_as_counted_and_keep_every_change(
    changes: list[dict[str, Any]],
    max_changes: int,
    max_bytes: int,
    take_closed_every: int,
    take_all_every: int,
) -> None:
    packer = ArrayPacker(max_changes, max_bytes)
    bodies: list[Body] = []
    for n, change in enumerate(changes, start=1):
        text = encode_change(change)
        packer.add(text, len(text.encode("utf-8")), change)
        if take_closed_every and n % take_closed_every == 0:
            open_changes = packer.changes - sum(len(body.changes) for body in packer.closed)
            bodies += packer.take_closed()
            assert packer.changes == open_changes
        if take_all_every and n % take_all_every == 0:
            counted, held = packer.size, packer.changes
            taken = packer.take()
            assert _bytes(taken) == counted
            assert sum(len(body.changes) for body in taken) == held
            bodies += taken
    counted = packer.size
    taken = packer.take()
    assert _bytes(taken) == counted
    bodies += taken
    assert packer.changes == 0 and packer.size == 0
    for body in bodies:
        assert body.size == len(body.text.encode("utf-8")) <= max_bytes
        assert 1 <= len(json.loads(body.text)) <= max_changes
    assert [c for body in bodies for c in json.loads(body.text)] == changes
