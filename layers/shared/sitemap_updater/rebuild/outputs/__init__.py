"""What a run sends out: the published objects in the bucket (``bucket``) and the CloudFront
invalidation (``invalidate``). IndexNow has its own package, ``sitemap_updater.indexnow``."""
