"""The readers of the sources ``build`` and ``backfill`` take: sitemaps, CSV and JSONL files.

``sources`` tells a source's kind and streams its records; ``sitemap_rows`` (with
``sitemap_extensions`` for videos and News) and ``text_sitemap`` read sitemaps, ``csv_rows`` CSV
files, into light rows; ``xml_guard`` is what every XML reader applies first (no DOCTYPE, the
root, the byte cap); ``news_articles`` holds an index's News articles for their pages;
``opening`` opens a file or URL (plain or gzip) within a source's policy (origins, caps), and
``records`` holds the record types they yield.
"""
