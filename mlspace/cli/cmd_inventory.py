"""``mlspace inventory``: runs, checkpoint series (best and latest) and space per category,
as a story on one screen or as JSON."""

from __future__ import annotations

import argparse
import json

from mlspace.cli.apparent import with_sparse_note
from mlspace.cli.exits import exit_code_for
from mlspace.cli.output import output_stream, wants_json
from mlspace.cli.sources import scan_and_classify


def cmd_inventory(args: argparse.Namespace) -> int:
    from mlspace.advise import advise
    from mlspace.cli.disk_lines import lines_text, statuses
    from mlspace.index.listing import totals_record
    from mlspace.index.records import (
        artifact_record,
        category_records,
        run_record,
        series_record,
    )
    from mlspace.report.story import inventory_story

    source, inventory = scan_and_classify(args)
    snapshot = source.snapshot
    disks = statuses(snapshot.roots, None if source.saved else advise(inventory),
                     saved=source.saved is not None)
    with output_stream(args.output) as out:
        if wants_json(args):
            doc = {
                "version": 1,
                "roots": list(snapshot.roots),
                "totals": totals_record(snapshot),
                "categories": category_records(inventory),
                "runs": [run_record(r) for r in inventory.runs],
                "series": [series_record(s, inventory) for s in inventory.series],
                "artifacts": [artifact_record(a) for a in inventory.artifacts],
                "errors": [{"path": e.path, "error": e.message} for e in snapshot.errors],
                "disks": [d.record() for d in disks],
            }
            json.dump(doc, out, indent=1)
            out.write("\n")
        else:
            t = snapshot.grand_totals()
            out.write(lines_text(disks) + with_sparse_note(
                inventory_story(inventory, apparent=args.apparent),
                                       t.disk_usage, t.apparent_size, args.apparent) + "\n")
    return exit_code_for(snapshot)
