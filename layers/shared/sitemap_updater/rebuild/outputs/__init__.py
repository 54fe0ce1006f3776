"""What a run sends out: the published objects in the bucket (``bucket``), the CloudFront
invalidation (``invalidate``) and the IndexNow queue (``indexnow_queue``)."""
