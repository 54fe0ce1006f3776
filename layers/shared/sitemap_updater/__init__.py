"""sitemap-updater: the code shared by the ingest and rebuild Lambda functions."""
