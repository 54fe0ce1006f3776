"""The three shapes of a message body, told apart without the contract's models.

A body is a change object, an EventBridge event whose ``detail`` is one, or an array of 1 to
:data:`MAX_ARRAY_ENTRIES` change objects (``contract`` has the models of each).
"""

from __future__ import annotations

from typing import Any, Final

#: Most change objects one array body may hold.
MAX_ARRAY_ENTRIES: Final = 500
#: Keys that mark an EventBridge envelope.
EVENTBRIDGE_KEYS: Final = frozenset({"detail", "detail-type"})
#: Keys of a change object that an EventBridge envelope never has at its top level.
CHANGE_KEYS: Final = frozenset({"action", "url"})


def looks_like_eventbridge(obj: dict[str, Any]) -> bool:
    """Whether a decoded JSON object is meant as an EventBridge event rather than a change.

    An object with ``action`` or ``url`` is a change object, even if it also carries a field
    of the producer's own named ``detail`` (unknown fields are ignored), exactly as the JSON
    Schema's first branch accepts it. Otherwise ``detail`` or ``detail-type`` marks an
    EventBridge event, which is then judged (and its errors reported) as one.
    """
    return CHANGE_KEYS.isdisjoint(obj) and not EVENTBRIDGE_KEYS.isdisjoint(obj)
