"""Contamination scans spread over partitions: plan the partitions of the input files, scan
each one against the broadcast golden n-gram index, and reduce the partial results into the
report ``goldcase.leakage.contamination`` defines. Engines: ``local`` (processes on this
machine) and ``dask`` (a ``distributed`` cluster; imported only when chosen)."""
