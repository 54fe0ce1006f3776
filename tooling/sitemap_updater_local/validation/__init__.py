"""The validator of ``sitemap-updater validate``: sitemap (urlset) and sitemap index files,
gzipped or plain, local or fetched. ``schemas`` loads the official XSDs, ``rules`` holds what an
XSD does not say and the report of one file, ``document`` reads a file as a stream and applies
both, after ``deprecated`` and ``extension_elements`` took out what only warns.

Checks, each reported as one ``SOURCE: problem`` line:

* well-formed XML and validity against the official XSDs (with the image, xhtml, video and news
  extension schemas bundled in ``schemas/``), plus the extension rules an XSD does not say: a
  video has ``content_loc`` or ``player_loc``, an ``xhtml:link`` has ``hreflang`` or ``media``, a
  file holds at most 1,000 news articles, and a URL at most 1,000 images and 100 videos (the
  limits ``backfill`` applies, from ``protocol.limits``);
* an alternate, image, video or News element that ``backfill`` and ``build`` would leave out or
  repair (``extension_elements``: the layer's rules, on the entry ``backfill``'s reader makes) is
  taken out, or repaired, before the XSD check, with the ``warning:`` line they print; like a tag
  Google deprecated (``deprecated``), it leaves the file passing;
* the protocol limits: at most 50,000 URLs (or child sitemaps) and 52,428,800 uncompressed bytes;
* every ``loc`` and alternate ``href`` follows the URL rules the writers apply: an absolute
  http(s) URL of 12 to 2,048 characters once normalized and XML-escaped, without control
  characters, and with any whitespace inside it percent-encoded;
* single host: every ``loc`` of a urlset has the same scheme, host and port; an alternate ``href``
  may be on any host ("Alternate URLs don't need to be in the same domain":
  https://developers.google.com/search/docs/specialty/international/localized-versions);
* the location rule: a urlset at ``https://h/a/sitemap.xml`` lists only URLs (``loc``) under
  ``https://h/a/``, and an index lists only sitemaps on its own site. A local file's URL is
  known only with ``--base-url`` (the URL of the directory the file will be published in);
  without it the rule is skipped with a note;
* ``lastmod`` forms: a date, or a datetime with a time zone, not more than a day ahead;
* for a local index, that every child it lists exists in the index's directory (matched by the
  last path segment of the child's URL).

A file is read as a stream, never whole: a DOCTYPE refuses it unread, a root that is not a
sitemap (a feed, another namespace) is named in one line, the inflated bytes stop at the
protocol's limit, and the entries are checked against the XSDs and the rules above in batches of
:data:`BATCH_ENTRIES` (``inputs/sitemaps/xml_guard.py`` holds what ``backfill``'s reader shares).
"""
