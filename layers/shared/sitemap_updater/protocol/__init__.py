"""The sitemaps.org protocol core: URL, date and language rules, the urlset and index files,
deterministic gzip, every limit. Pure Python; no AWS (https://www.sitemaps.org/protocol.html).

The page itself, its fields and their rules, is ``sitemap_updater.page``'s.
"""
