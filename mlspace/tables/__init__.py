"""The app's derived tables, without Qt: what a scan shows once the cleanups made since are
taken off it.

The workspace (mlspace.ui.workspace) keeps the truth (the scan, what moved to the trash since,
the size mode and the filter) and composes these: ``now`` (an entry's totals and the
per-folder category tables as on disk now), ``charts`` (the category, age and owner charts'
bars), ``runs`` (runs, checkpoint series and artifacts left), ``archived`` (the scan's links
and stubs of archived items), ``categories`` (which category a row or tile is drawn in,
and what an entry holds of each), ``shown`` (what the filter shows: sizes, children, file
counts), ``refused`` (where no cleanup may start), ``changes`` (growth since a compared saved
scan) and ``lookup`` (the suggestions about an entry, and the artifact holding it). Each is
plain arrays and values, tested without a display.
"""
