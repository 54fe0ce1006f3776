"""The rebuild: incremental, sharded sitemaps written to S3 behind CloudFront.

Modules: ``service`` (the run, :class:`~sitemap_updater.rebuild.service.RebuildService`),
``report`` (the run report and its metrics), ``request`` (the scheduled event), ``render``,
``patch``, ``feed``, ``state``, ``publish`` and the rest, one job each. Import from the
modules; this package does not import them eagerly, so that the pure parts (the renderer that
``sitemap-updater build`` uses) load without the Powertools instances and the AWS SDK.
"""
