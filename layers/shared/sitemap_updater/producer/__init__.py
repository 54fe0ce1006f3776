"""The producer side: sending changes to the ingest queue from any Python program.

Modules: ``client`` (:class:`~sitemap_updater.producer.client.ChangeSender`: checks, buffers,
packs and flushes changes), ``checks`` (the ingest judge applied before sending, and the errors
a producer sees), ``packing`` (array bodies of at most 500 changes and 256 KiB), ``batches``
(``SendMessageBatch`` with the failed entries sent again). They need boto3 and the contract,
never the local tooling. Import from the modules.
"""
