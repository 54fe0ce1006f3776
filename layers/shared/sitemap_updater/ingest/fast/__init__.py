"""The judge's fast path: a change alone (``change``), and many changes at once (``batch``)."""

from sitemap_updater.ingest.fast.batch import (
    Batch,
    Decided,
    decide_together,
    decided_keys,
    fast_changes,
)
from sitemap_updater.ingest.fast.change import FIXED_ALLOWANCE, ROOMY_BODY, fast_change

__all__ = [
    "FIXED_ALLOWANCE",
    "ROOMY_BODY",
    "Batch",
    "Decided",
    "decide_together",
    "decided_keys",
    "fast_change",
    "fast_changes",
]
