"""One CloudFront invalidation per run for the paths whose bytes changed.

The caller reference is the sha256 of the sorted ``path new-sha256`` pairs, so a run that is
repeated after a crash sends the same request and CloudFront treats it as the same invalidation.
CloudFront allows at most 3,000 paths in progress per distribution; above ``max_paths`` one
wildcard replaces the sitemap paths
(https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from mypy_boto3_cloudfront.client import CloudFrontClient

WILDCARD: Final = "/sitemap*"


def caller_reference(changes: Mapping[str, str]) -> str:
    text = "\n".join(f"{path} {sha}" for path, sha in sorted(changes.items()))
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

    def invalidate(self, changes: Mapping[str, str]) -> list[str]:
        """Invalidate ``changes`` (path -> new sha256); returns the paths sent."""
        if not changes or not self.enabled or self._cloudfront is None:
            return []
        for path in changes:
            if not path.startswith("/"):
                raise ValueError(f"invalidation path {path!r} must start with '/'")
        paths = paths_to_invalidate(changes, self._max_paths)
        self._cloudfront.create_invalidation(
            DistributionId=self._distribution_id,
            InvalidationBatch={
                "Paths": {"Quantity": len(paths), "Items": paths},
                "CallerReference": caller_reference(changes),
            },
        )
        return paths
