"""The readers of the sources ``build`` and ``backfill`` take: sitemaps, CSV and JSONL files.

``sources`` tells a source's kind and streams its records; ``sitemaps`` reads XML and text
sitemaps, ``csv_rows`` (with ``csv_columns``) CSV files, into light rows; ``line_blocks`` reads
a stream in blocks of whole lines; ``opening`` opens a file or URL (plain or gzip) within a
source's policy (origins, caps), and ``records`` holds the record types they yield.
"""
