"""The change objects the fast path knows, as typed structs a compiled decoder fills.

One call of msgspec's decoder reads a body's JSON and checks its shape: an object whose
``action`` is ``upsert`` or ``delete``, with only the fields that action's fast path knows (the
entry's plain fields, ``protocol.entry``, and the change's own), each of the type it must have,
alternates and images as lists of objects with exactly their keys. Anything else (another
field, such as videos or a producer's own, a ``null`` the fast path cannot take, a number where
a string belongs, JSON the decoder refuses) is a :class:`msgspec.MsgspecError`, and the caller
then leaves the body to the careful judge (``ingest.events``), which names the rule it breaks.
``null`` is absent wherever the careful judge reads it so (the single values, ``occurred_at``
and ``section``), and a type error everywhere else.

The values are not judged here: the fast path (``ingest.fast``) hands them to the protocol
core's one recognizer of normalized form. A key given twice keeps its last value, as the
standard library's decoder does.
"""

from __future__ import annotations

from typing import Final

import msgspec


class WireAlternate(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One alternate object: exactly ``hreflang`` and ``href``."""

    hreflang: str
    href: str


class WireImage(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One image object: exactly ``loc``."""

    loc: str


class WireUpsert(
    msgspec.Struct, forbid_unknown_fields=True, gc=False, tag_field="action", tag="upsert"
):
    """An upsert of plain fields alone (``None``: absent or ``null``)."""

    url: str
    occurred_at: str | None = None
    section: str | None = None
    lastmod: str | None = None
    changefreq: str | None = None
    priority: int | float | None = None
    alternates: list[WireAlternate] = []
    images: list[WireImage] = []


class WireDelete(
    msgspec.Struct, forbid_unknown_fields=True, gc=False, tag_field="action", tag="delete"
):
    """A delete: its URL, and perhaps its time and section."""

    url: str
    occurred_at: str | None = None
    section: str | None = None


WireChange = WireUpsert | WireDelete

#: The fields of each action the fast path knows, ``action`` included.
UPSERT_FIELDS: Final = frozenset({"action", *WireUpsert.__struct_fields__})
DELETE_FIELDS: Final = frozenset({"action", *WireDelete.__struct_fields__})

#: Decodes one change object (raises ``msgspec.MsgspecError`` for any other text).
decode_change: Final = msgspec.json.Decoder(WireChange).decode
#: Decodes a body: one change object, or an array of them.
decode_changes: Final = msgspec.json.Decoder(WireChange | list[WireChange]).decode

DecodeError: Final = msgspec.MsgspecError
