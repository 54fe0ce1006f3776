"""Ingest: change messages from SQS into the URL table, exactly once in effect.

Modules: ``judge`` (a message into its changes or rejections, through ``page``), ``rejection``
(what a rejection names), ``listing`` (a sitemap or spreadsheet listing judged as a change),
``apply`` (the conditional write on the ordering key), ``dlq`` (dead-lettering with reasons),
``intake`` (the batch flow).
Import from the modules; this package does not import them eagerly, so that the pure parts
load without the Powertools instances.
"""
