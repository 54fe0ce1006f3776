"""The human view of a host's sitemaps: a static page (``sitemap.html``) with its script and
style as files of their own (``sitemap.js``, ``sitemap.css``), published beside each host's
index. In the browser it reads the index, counts each file's URLs, searches every file of the
host, and opens any file, gzipped or not, as a searchable, sortable list; see docs/view.md.

The files are the same for every host and every run: they are put only when their bytes differ
from the ones last put (the rebuild's record of published objects), so a run pays for them once,
when the view itself changes. ``sitemap.xsl`` links ``sitemap.css`` too.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Final

#: The page a person opens, e.g. https://www.example.com/sitemap.html.
VIEW_PAGE: Final = "sitemap.html"
#: Every file of the view, in the order they are put (the page last, after what it loads).
VIEW_NAMES: Final = ("sitemap.css", "sitemap.js", VIEW_PAGE)


@cache
def view_files() -> tuple[tuple[str, bytes], ...]:
    """Each file of the view as the package ships it: ``(name, bytes)`` in the order of
    :data:`VIEW_NAMES`."""
    folder = files(__name__)
    return tuple((name, folder.joinpath(name).read_bytes()) for name in VIEW_NAMES)


#: What the view needs of a browser's Content-Security-Policy, and no more: its own script,
#: style and fetches (the index and files beside it); no inline script or style, no framing, no
#: base or form. ``sitemap.xsl`` needs the same (an XSLT stylesheet loads as a script-like
#: destination, ``script-src``). template.yaml's ResponseHeadersPolicy sends exactly this
#: (``tests/template`` compares them), and ``sitemap-updater serve`` sends it too.
CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: The other headers the distribution's policy sends with every object (HSTS aside, which
#: means nothing over the local preview's plain HTTP).
SECURITY_HEADERS: Final = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "strict-origin-when-cross-origin"),
)
