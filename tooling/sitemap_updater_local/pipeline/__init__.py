"""From the records of sources to the final state and its files, offline, on the system's own
parts: ``source_blocks`` cuts the sources into work, which ``judging`` judges as ingest does into
the URL items it would write (on the workers of ``ordered_pool``); ``final_state`` keeps the
newest change of each page, by the one ordering rule; ``static_build`` is ``build``'s whole run,
rendered through the rebuild's own spools, leaf renderer and News desk (``site_files`` writes
them); ``backfill_changes`` is ``backfill``'s, one upsert per page.
"""
