"""Change objects packed into array bodies of at most 500 changes and 256 KiB.

A body is the JSON array of the changes' own encodings, joined by commas, so its size is known
exactly before it is built: two brackets, the changes' UTF-8 bytes, and one comma between two
changes. SQS counts a message's size as its body's UTF-8 bytes (no attributes are sent).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from sitemap_updater.page.model import MAX_ARRAY_CHANGES

#: Largest body, in bytes: the queue's ``MaximumMessageSize`` in template.yaml (256 KiB).
MAX_BODY_BYTES: Final = 256 * 1024
#: The brackets of an array body.
ARRAY_OVERHEAD_BYTES: Final = 2


def encode_change(change: Mapping[str, Any]) -> str:
    """The compact JSON text of one change object, as it goes into a body.

    Raises ``ValueError`` or ``TypeError`` for a value JSON cannot hold (NaN, a set, ...).
    """
    return json.dumps(change, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@dataclass(slots=True)
class Body:
    """One array body being filled: the changes' texts, and the changes themselves."""

    texts: list[str] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    size: int = ARRAY_OVERHEAD_BYTES

    def room_for(self, size: int, max_changes: int, max_bytes: int) -> bool:
        """Whether a change of ``size`` bytes still fits (a comma before it if not the first)."""
        comma = 1 if self.texts else 0
        return len(self.texts) < max_changes and self.size + comma + size <= max_bytes

    def add(self, text: str, size: int, change: dict[str, Any]) -> None:
        self.size += size + (1 if self.texts else 0)
        self.texts.append(text)
        self.changes.append(change)

    @property
    def text(self) -> str:
        return "[" + ",".join(self.texts) + "]"


class ArrayPacker:
    """Fills bodies in order; a body is closed when the next change would not fit in it."""

    def __init__(
        self, max_changes: int = MAX_ARRAY_CHANGES, max_body_bytes: int = MAX_BODY_BYTES
    ) -> None:
        if not 1 <= max_changes <= MAX_ARRAY_CHANGES:
            raise ValueError(f"max_changes must be from 1 to {MAX_ARRAY_CHANGES}")
        if not 16 <= max_body_bytes <= MAX_BODY_BYTES:
            raise ValueError(f"max_body_bytes must be from 16 to {MAX_BODY_BYTES}")
        self.max_changes = max_changes
        self.max_body_bytes = max_body_bytes
        self.closed: list[Body] = []
        self._open = Body()
        #: changes held, in the closed bodies and the open one
        self.changes = 0
        self._closed_bytes = 0

    @property
    def size(self) -> int:
        """Bytes of the bodies held, the open one as it stands."""
        return self._closed_bytes + (self._open.size if self._open.texts else 0)

    def fits_alone(self, size: int) -> bool:
        """Whether a change of ``size`` bytes fits in a body of its own."""
        return ARRAY_OVERHEAD_BYTES + size <= self.max_body_bytes

    def add(self, text: str, size: int, change: dict[str, Any]) -> None:
        """Add one change (``size``: the UTF-8 bytes of ``text``; it must fit alone)."""
        if not self._open.room_for(size, self.max_changes, self.max_body_bytes):
            self.closed.append(self._open)
            self._closed_bytes += self._open.size
            self._open = Body()
        self._open.add(text, size, change)
        self.changes += 1

    def take_closed(self) -> list[Body]:
        """The closed bodies; the open one stays."""
        bodies, self.closed = self.closed, []
        self.changes -= sum(len(b.changes) for b in bodies)
        self._closed_bytes = 0
        return bodies

    def take(self) -> list[Body]:
        """Every body held, the open one closed; the packer is empty afterwards."""
        bodies = [*self.closed, self._open] if self._open.texts else self.closed
        self.closed, self._open = [], Body()
        self.changes = self._closed_bytes = 0
        return bodies
