"""Clients of the search engines' webmaster APIs (Google Search Console, Bing Webmaster) and the
URL health check that fetches a site's own pages.

Each client takes its API root as a parameter, so that tests and the demo point it at a server on
127.0.0.1; every request, the OAuth token's included, ends by an overall deadline
(:mod:`sitemap_updater.bounded_http`). Failures are :class:`~.exceptions.EngineError` subclasses
that say whether a later run may succeed.
"""
