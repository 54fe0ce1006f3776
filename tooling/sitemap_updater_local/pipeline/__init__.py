"""From source records to the final state, offline, with the ingest's rules.

``change_reader`` and ``raw_entries`` judge records as ingest would; ``source_blocks`` cuts a
build's source into blocks of lines or chunks of records, which ``fragment_spooling`` judges on
worker processes, spooling each change's ``<url>`` fragment; ``final_state`` resolves spooled
changes on disk, last writer wins; ``site_files`` renders a leaf's files and writes each host's
index; ``static_build`` is ``build``'s whole run, all or nothing. ``backfill_events`` turns a
source's records into upsert events, one per page, and ``upsert_lines`` writes each event's
line; ``ordered_pool`` runs tasks on worker processes in order.
"""
