"""The sitemap extensions a <url> may carry beyond sitemaps.org: Google News and video."""
