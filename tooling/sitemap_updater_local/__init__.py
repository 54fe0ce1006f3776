"""Local tooling for sitemap-updater: never shipped to Lambda."""
