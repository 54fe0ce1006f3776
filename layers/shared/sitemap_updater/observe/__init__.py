"""The observer: what search engines did with the published sitemaps, per host and section.

A scheduled function of its own runs :mod:`.service` each time: it submits each host's index to
the engines that are turned on (once per index, retried in later runs: :mod:`.submissions`),
reads Search Console's status of the index and of its files, inspects a sample of each
section's URLs (:mod:`.sampling`) within the day's API budget (:mod:`.budget`), fetches a sample
from the site itself for its health, and writes the figures of each host and section
(:mod:`.figures`) to the state table and to CloudWatch.
"""
