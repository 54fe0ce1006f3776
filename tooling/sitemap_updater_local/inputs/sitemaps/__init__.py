"""The readers of XML and text sitemaps: ``sitemap_rows`` (with ``sitemap_extensions`` for
images, videos and News) and ``text_sitemap``; ``xml_guard`` is what every XML reader applies
first (no DOCTYPE, the root, the byte cap), the validator's too; ``news_articles`` holds an
index's News articles for their pages."""
