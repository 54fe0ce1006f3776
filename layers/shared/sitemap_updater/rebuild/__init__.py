"""The rebuild: incremental, sharded sitemaps written to S3 behind CloudFront.

``runner`` runs one rebuild (:class:`~sitemap_updater.rebuild.runner.RebuildService`) through
the ``steps`` of a run; ``state`` holds the stores of the rebuild's items in the state table,
``inputs`` what a run reads (the change feed, URL items, spools), ``outputs`` what it sends out
(the bucket, the invalidation, IndexNow's pending set). ``render`` and
``patch`` render the files, ``news`` the News files,
``report`` is the run report and its metrics, ``request`` the scheduled event. Import from the
modules; this package does not import them eagerly, so that the pure parts (the renderer that
``sitemap-updater build`` uses) load without the Powertools instances and the AWS SDK.
"""
