"""Settings every test process needs before the shared package is imported.

Powertools' ``Metrics()`` reads ``POWERTOOLS_METRICS_NAMESPACE`` once, when
``sitemap_updater.observability`` is first imported. In Lambda, template.yaml sets it for both
functions. Here the first import can happen in any test file (pytest-xdist spreads files over
workers), so it is set before collection, as the template would.
"""

from __future__ import annotations

import os

os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "SitemapUpdaterTest")
