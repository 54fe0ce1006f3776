"""The validator of ``sitemap-updater validate``, a gate for CI: sitemap (urlset) and sitemap
index files, gzipped or plain, local or fetched, each problem one ``FILE:LINE: problem`` line
(``report``).

A file fails on anything Google or the official XSDs reject:

* each ``<url>`` is judged by the one judge, as ingest judges a page (``pages``): every rule of
  the page, its alternates, images, videos and News article, in the words ``backfill`` and
  ``build`` use for the same element;
* the file's own rules (``rules``): every ``<loc>`` of a urlset on one scheme, host and port,
  judged against the file's URL when it is known (``--base-url``, or a fetched file's URL), else
  against the origin most of its entries are on; the location rule, with the file's URL; an
  index's children (each an http(s) URL on the index's site, and a file of its local directory);
  at most 1,000 articles in a News file; each tag of a video at most once;
* the protocol's limits: at most 50,000 entries and 52,428,800 uncompressed bytes a file;
* the official XSDs with the image, xhtml, video and News extension schemas (``schemas``), which
  check each entry after the rules above, without the elements they already reported.

A tag Google deprecated (``deprecated``) is a warning, since Google ignores it: it is taken out
before the rest are checked, and the file passes.

A file is read as a stream, never whole: a root that is not a sitemap (a feed, another namespace)
is named in one line, no entity is ever expanded (an entry that uses one is reported), the
inflated bytes stop at the protocol's limit, and the entries are checked in batches of
``document.BATCH_ENTRIES`` (``inputs/sitemaps/xml_guard.py`` holds what ``backfill``'s reader
shares).
"""
