"""Peer for bench_build.py: xml-sitemap-writer (PyPI) writing sitemaps from a JSONL of events.

    python xsw_build.py EVENTS.jsonl OUT_DIR SITE   (xml-sitemap-writer importable)

It writes every upsert as it comes, with its own defaults (gzip level 9, 15,000 URLs a file);
it neither normalizes nor validates, and does not resolve later edits or deletes.
"""

import json
import os
import sys

from xml_sitemap_writer import XMLSitemap


def main() -> None:
    source, out, site = sys.argv[1:4]
    urls = 0
    os.makedirs(out, exist_ok=True)
    with XMLSitemap(out, site) as sitemap, open(source, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            event = json.loads(line)
            if event.get("action") != "upsert":
                continue
            priority = event.get("priority")
            sitemap.add_url(
                event["url"][len(site) :],
                lastmod=event.get("lastmod"),
                priority=None if priority is None else str(priority),
                changefreq=event.get("changefreq"),
            )
            urls += 1
    print(f"{urls} URLs written")


if __name__ == "__main__":
    main()
