"""The observer: what search engines did with the published sitemaps, per host and section.

A scheduled function of its own runs :mod:`.observer` each time: it submits each host's index to
the engines that are turned on (once per index, retried in later runs: :mod:`.submissions`),
then shares the run's time among the hosts and their sections: it reads the engines' status of
each index and of its files, draws each section's sample (:mod:`.sampling`), inspects it within
the day's API budget (:mod:`.budget`) and fetches it from the site itself for its health, and
writes the figures of each host and section (:mod:`.figures`; the crawl latency from
:mod:`.latency` and :mod:`.statistics`) and their history to the state table (:mod:`.records`)
and to CloudWatch (:mod:`.signals`). :mod:`.report` reads them back for
``sitemap-updater coverage``.
"""
