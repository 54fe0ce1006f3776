"""The news files: read back the published ones at the start of a run, put the changed ones
before the index that lists them."""

from __future__ import annotations

from sitemap_updater.observability import logger
from sitemap_updater.protocol.render.fragments import PublishedFormatError
from sitemap_updater.rebuild.news import NewsDesk, is_news_key
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools

#: (file key, index lastmod, URL count) of a news file the index lists
NewsListing = tuple[str, str | None, int]


def news_desk(tools: Tools, now: float) -> NewsDesk:
    """An empty desk for the run's news files (:func:`load_news` fills it)."""
    return NewsDesk(
        tools.site,
        window_hours=tools.config.news_window_hours,
        now=now,
        max_bytes=tools.config.max_bytes_per_sitemap,
    )


def load_news(run: Run) -> None:
    """The articles of the published news files; reads them only when the record lists some,
    so a site without news reads nothing."""
    bodies = {}
    for key in run.published.files:
        if is_news_key(key):
            body = run.read_object(key)
            if body is not None:
                bodies[key] = body
    try:
        run.news.load(bodies)
    except PublishedFormatError as error:
        logger.warning(
            "a published news file cannot be read back; its articles return with their "
            "next change or the next full rebuild",
            reason=str(error),
        )


def publish_news(run: Run, *, force: bool) -> list[NewsListing]:
    """Put the news files whose bytes changed; returns the listing of each, for the index."""
    desk = run.news
    listed: list[NewsListing] = []
    for news_file in desk.render():
        changed = desk.published.get(news_file.key) != news_file.sha256
        if changed or force:
            run.objects.put(news_file.key, news_file.body)
        previous = (run.listing or {}).get(news_file.key, (None, 0))[0]
        lastmod = run.now_w3c if changed or previous is None else previous
        listed.append((news_file.key, lastmod, news_file.url_count))
    run.note_news(listed)
    return listed
