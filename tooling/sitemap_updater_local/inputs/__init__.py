"""The readers of the sources ``build`` and ``backfill`` take: sitemaps, CSV and JSONL files.

``sources`` tells a source's kind and streams its records; ``sitemap_rows`` and ``csv_rows``
read sitemap XML and CSV into light rows, ``opening`` opens a file or URL (plain or gzip), and
``records`` holds the record types they yield.
"""
