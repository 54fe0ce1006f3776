"""What a run reads: the change feed from the table's stream (``feed``), URL items by shard or by
parallel Scan (``source``), and the on-disk spools of a full rebuild (``spools``)."""
