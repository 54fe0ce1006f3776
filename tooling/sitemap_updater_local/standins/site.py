"""A small website on 127.0.0.1 for the URL health check: pages that answer 200, permanent and
temporary redirects, a 404, ``noindex`` by meta tag and by header, a canonical that names
another page, and a page that drips in slowly; and, to add to them, :data:`HOSTILE` pages that
no reading of a page should survive unharmed (a charset Python cannot decode with, markup the
standard parser refuses, a redirect whose target is 60 KB long).

```python
with LocalSite() as site:
    site.url + "/articles/1"          # 200, canonical to itself
    site.problem_urls()               # {"redirect-301": url, "noindex-meta": url, ...}
    site.requests                     # every request, with its User-Agent
```
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from sitemap_updater_local.standins.loopback import (
    DRIP_INTERVAL,
    Failure,
    LoopbackServer,
    Reply,
    Request,
)

#: How many ``/articles/N`` pages answer 200 (N from 1).
ARTICLES: Final = 200
#: a ``Location`` of this many characters
LONG_LOCATION_CHARS: Final = 60_000


@dataclass(frozen=True, slots=True)
class SiteAnswer:
    status: int = 200
    #: a redirect's target, or the canonical link's href (both as written, may be relative)
    location: str | None = None
    canonical: str | None = None
    robots_meta: str | None = None
    #: the robots meta tag's name: ``robots`` (every crawler), ``googlebot`` ...
    meta_name: str = "robots"
    robots_header: str | None = None
    drip: bool = False
    extra_headers: dict[str, str] = field(default_factory=dict)
    #: the ``Content-Type`` of the page, and markup put first in its head
    content_type: str = "text/html; charset=utf-8"
    head_markup: str = ""


#: pages that try the health check's reading: each must end as that URL's outcome, no more
HOSTILE: Final = {
    "/charset-undefined": SiteAnswer(content_type="text/html; charset=undefined"),
    "/charset-idna": SiteAnswer(content_type="text/html; charset=idna"),
    "/marked-section": SiteAnswer(head_markup="<![FOR]><![if !supportLists]>"),
    "/long-redirect": SiteAnswer(301, location="/articles/1?" + "x" * LONG_LOCATION_CHARS),
}


def html(title: str, head: str = "") -> bytes:
    return (
        f"<!doctype html>\n<html><head><meta charset=utf-8><title>{title}</title>{head}</head>"
        f"<body><h1>{title}</h1><p>{'Lorem ipsum. ' * 40}</p></body></html>\n"
    ).encode()


class LocalSite(LoopbackServer):
    """The site; ``pages`` maps a path to its :class:`SiteAnswer` (``/articles/N`` answer 200 with
    a canonical to themselves unless ``pages`` says otherwise). ``elsewhere`` is the origin the
    off-site redirect points to (another server's, so a test can see it is never asked)."""

    def __init__(
        self, *, elsewhere: str = "http://127.0.0.2:9", address: str = "127.0.0.1"
    ) -> None:
        super().__init__(address)
        self.pages: dict[str, SiteAnswer] = {
            "/redirect-301": SiteAnswer(301, location="/articles/1"),
            "/redirect-302": SiteAnswer(302, location="/articles/2"),
            "/redirect-off-site": SiteAnswer(301, location=elsewhere + "/somewhere"),
            "/missing": SiteAnswer(404),
            "/gone": SiteAnswer(410),
            "/broken": SiteAnswer(500),
            "/noindex-meta": SiteAnswer(robots_meta="noindex, follow"),
            "/noindex-googlebot": SiteAnswer(robots_meta="noindex", meta_name="googlebot"),
            "/noindex-header": SiteAnswer(robots_header="noindex"),
            "/foreign-canonical": SiteAnswer(canonical="/articles/3"),
            "/slow": SiteAnswer(drip=True),
        }

    def problem_urls(self) -> dict[str, str]:
        """Each page that is not a plain 200, by a name for what is wrong with it."""
        return {path.strip("/"): self.url + path for path in self.pages}

    def article_urls(self, count: int = ARTICLES) -> list[str]:
        return [f"{self.url}/articles/{n}" for n in range(1, count + 1)]

    def failure_reply(self, failure: Failure, request: Request) -> Reply:
        return Reply(503, b"busy", {"Content-Type": "text/plain", "Retry-After": "60"})

    def answer(self, request: Request) -> Reply:
        page = self.pages.get(request.path)
        if page is None:
            number = request.path.removeprefix("/articles/")
            if not (number.isdigit() and 1 <= int(number) <= ARTICLES):
                return Reply(404, html("Not found"), {"Content-Type": "text/html"})
            page = SiteAnswer(canonical=request.path)
        headers = {"Content-Type": page.content_type, **page.extra_headers}
        if page.location is not None:
            headers["Location"] = page.location
            return Reply(page.status, b"", headers)
        if page.robots_header is not None:
            headers["X-Robots-Tag"] = page.robots_header
        head = page.head_markup
        if page.robots_meta is not None:
            head += f'<meta name="{page.meta_name}" content="{page.robots_meta}">'
        if page.canonical is not None:
            head += f'<link rel="canonical" href="{page.canonical}">'
        body = html(request.path.strip("/") or "home", head)
        return Reply(page.status, body, headers, drip=DRIP_INTERVAL if page.drip else 0.0)
