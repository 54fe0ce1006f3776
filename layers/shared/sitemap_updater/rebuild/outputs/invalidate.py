"""One CloudFront invalidation per run for the paths whose bytes changed.

CloudFront treats a second request with a caller reference it has seen as the first one and
invalidates nothing, so a reference must never repeat for a new publish, and may repeat only for
a retry that wrote exactly the same bytes as the request it repeats.

* A new reference is the sha256 of the publish ``generation`` (a counter in the publish record
  that every run raises before its first write) and the sorted ``path new-sha256`` pairs. Content
  that goes A -> B -> A is published by three generations, so it gets three references.
* A run that finds the previous run's ``SentBatch`` (noted just before that run's request, and
  dropped by the next write of any run) reuses its reference if it writes the same changes: the
  bucket holds the bytes that request was about, so CloudFront returning the earlier invalidation
  is correct, and the retry costs no second invalidation.

CloudFront allows at most 3,000 paths in progress per distribution; above ``max_paths`` one
wildcard replaces the sitemap paths
(https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from sitemap_updater.rebuild.state.publication import SentBatch

if TYPE_CHECKING:
    from mypy_boto3_cloudfront.client import CloudFrontClient

WILDCARD: Final = "/sitemap*"


def changes_digest(changes: Mapping[str, str]) -> str:
    """sha256 of the sorted ``path new-sha256`` pairs (independent of the mapping's order)."""
    text = "\n".join(f"{path} {sha}" for path, sha in sorted(changes.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def caller_reference(
    changes: Mapping[str, str], generation: int, retry_of: SentBatch | None = None
) -> str:
    """The reference for ``changes`` published by ``generation``; ``retry_of``'s reference when
    it was sent for the same changes (see the module docstring)."""
    if generation < 0:
        raise ValueError(f"generation={generation} must be >= 0")
    digest = changes_digest(changes)
    if retry_of is not None and retry_of.changes == digest:
        return retry_of.reference
    text = f"generation {generation}\n{digest}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def paths_to_invalidate(changes: Mapping[str, str], max_paths: int) -> list[str]:
    """The paths to send: the changed ones, or the wildcard (plus any non-sitemap path)."""
    paths = sorted(changes)
    if len(paths) <= max_paths:
        return paths
    return [WILDCARD, *(p for p in paths if not p.startswith("/sitemap"))]


class Invalidator:
    """Sends the invalidation of one distribution; does nothing without a distribution id."""

    def __init__(self, cloudfront: CloudFrontClient | None, distribution_id: str, max_paths: int):
        if max_paths < 1:
            raise ValueError(f"max_paths={max_paths} must be >= 1")
        self._cloudfront = cloudfront
        self._distribution_id = distribution_id
        self._max_paths = max_paths

    @property
    def enabled(self) -> bool:
        return bool(self._distribution_id) and self._cloudfront is not None

    def invalidate(self, changes: Mapping[str, str], reference: str) -> list[str]:
        """Invalidate ``changes`` (path -> new sha256) under ``reference``; returns the paths
        sent (none when nothing changed or no distribution is configured)."""
        if not changes or not self.enabled or self._cloudfront is None:
            return []
        for path in changes:
            if not path.startswith("/"):
                raise ValueError(f"invalidation path {path!r} must start with '/'")
        if not reference:
            raise ValueError("caller reference '' must not be empty")
        paths = paths_to_invalidate(changes, self._max_paths)
        self._cloudfront.create_invalidation(
            DistributionId=self._distribution_id,
            InvalidationBatch={
                "Paths": {"Quantity": len(paths), "Items": paths},
                "CallerReference": reference,
            },
        )
        return paths
