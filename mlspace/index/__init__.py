"""Saved scans: a scan written to a file (mlspace's Parquet index, or ncdu's JSON export) and
opened again later or elsewhere, without touching the disk it describes.

Modules, one job each: ``sniff`` tells what a file is (no heavy imports), ``parquet_write``
and ``parquet_read`` are mlspace's format, ``ncdu_write`` and ``ncdu_read`` ncdu's,
``rebuild`` turns saved columns back into a Snapshot, ``inventory_codec`` saves what
classification concluded, ``offline`` classifies an import without reading any record,
``saved`` opens any of them, ``here`` tells which of a scan's folders are on this machine,
``history`` keeps saved scans, ``diff`` compares two scans. ``listing`` (one record per
entry) and ``records`` (one per category, artifact, series and run) are the stable JSON
records every export shares: a saved scan's metadata, ``scan --format json``, the reports.
pyarrow is imported only by the modules that need it, so a plain ``mlspace scan`` starts fast.
"""
