"""``mlspace purge``: free for good what mlspace moved to the trash, the one step that gives a
disk its space back after a cleanup. It names what goes and what it cannot undo, asks (on a
terminal, unless --yes), and says what the disk really got back."""

from __future__ import annotations

import argparse
import sys
import time

from mlspace import fmt
from mlspace.cli.exits import EXIT_OK, EXIT_UNREADABLE, UsageError
from mlspace.cli.terminal import confirm


def cmd_purge(args: argparse.Namespace) -> int:
    from mlspace.act import purge
    from mlspace.cli.cmd_archive import user_settings

    days = args.older_than
    if args.expired:
        if days is not None:
            raise UsageError("--expired and --older-than: give one of them")
        days = user_settings().trash_days
        if not days:
            print("trash_days is 0 in config.toml: mlspace's trash is kept until freed by "
                  "hand; nothing expired.")
            return EXIT_OK
    if days is not None and (days != days or days < 0):
        raise UsageError("--older-than takes a number of days, 0 or more")
    try:
        items = purge.select(args.cleanups, days)
    except KeyError as err:
        raise UsageError(str(err.args[0])) from None
    if not items:
        print("Nothing of mlspace's is in the trash" + (f" for more than {days:g} days"
                                                        if days else "") + ".")
        return EXIT_OK
    now = time.time()
    for item in items:
        print(f"  {fmt.size(item.disk_usage):>10}  {item.path}  (in the trash "
              f"{fmt.age(now - item.trashed_at)}, cleanup {item.cleanup_id})")
    total = sum(i.disk_usage for i in items)
    print(f"\n{fmt.plural(len(items), 'item')}, {fmt.size(total)} in the trash.")
    if args.dry_run:
        result = purge.purge(items, dry_run=True)
        _say_left(result.left)
        print("Dry run: nothing was deleted.")
        return EXIT_OK
    if not confirm("Delete these for good? This cannot be undone.", args):
        print("Nothing was deleted.")
        return EXIT_OK
    result = purge.purge(items)
    for path in result.finished:
        print(f"  finished an interrupted purge: {path}")
    print(f"Freed {fmt.size(max(result.freed, 0))}: the disk has that much more free space "
          f"({fmt.plural(len(result.purged), 'item')} deleted for good; they cannot be "
          "put back).")
    if result.freed < result.bytes // 2:
        print(f"  (they took {fmt.size(result.bytes)} when scanned: hard links elsewhere, "
              "files still open or other programs writing keep the rest in use)")
    _say_left(result.left)
    return EXIT_UNREADABLE if result.left else EXIT_OK


def _say_left(left: tuple) -> None:
    for item, why in left:
        print(f"  left alone {item.path}: {why}", file=sys.stderr)
