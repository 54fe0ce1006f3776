"""The steps of one rebuild run, one job a module, in the order ``service`` runs them.

``run`` holds the run's state and is the only writer of its report; ``objects`` makes every
write to the bucket in its crash-safe order; ``tools`` is what the steps use besides the state.
The steps: ``feed_window`` (what the change feed holds), the news files (``rebuild.news.files``),
``incremental`` (patch the changed leaves), ``full`` (render every leaf from a spooled Scan),
``index`` (the index, the empty-site file and robots.txt) and IndexNow (``indexnow.step``).
"""
