"""``mlspace``'s entry point: run the command named first, or open the app; and turn the
ways a command can stop (bad usage, Ctrl-C, a closed pipe) into an exit code and one line,
never a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from mlspace.cli.exits import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError
from mlspace.cli.parser import COMMANDS, build_parser
from mlspace.written import CannotWrite


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--help-app":
        from mlspace.cli.app import run_gui

        argv[0] = "--help"
        return run_gui(argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        from mlspace.cli.app import not_a_mistyped_command, run_gui

        try:
            not_a_mistyped_command(argv)
            return run_gui(argv)
        except UsageError as err:
            print(f"mlspace: {err}", file=sys.stderr)
            return EXIT_USAGE
    parser = build_parser(argv[0] if argv[0] in COMMANDS else None)
    args, unknown = parser.parse_known_args(paths_out_of_apply(argv))
    if unknown:  # the command's own usage, not the top-level one
        args.command_parsers[args.command].error(
            f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return COMMANDS[args.command](args)
    except (UsageError, CannotWrite) as err:
        print(f"mlspace: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\nmlspace: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        from mlspace.cli.output import discard_stdout

        discard_stdout()  # the reader went away: not an error worth a traceback
        return EXIT_OK
    except Exception as err:  # a bug: one line, the details kept for a report
        print(f"mlspace: internal error: {type(err).__name__}: {err} "
              f"(a bug in mlspace{crash_report()}); nothing more was done",
              file=sys.stderr)
        return EXIT_INTERNAL


def crash_report() -> str:
    """Keep the traceback of the error being handled in mlspace's state folder; where it
    is, as words for the message (nothing when it could not be written)."""
    import time
    import traceback

    from mlspace.cli.output import output_stream
    from mlspace.config import state_dir

    folder = state_dir()
    path = folder / time.strftime("crash-%Y%m%d-%H%M%S.txt")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with output_stream(str(path)) as out:
            out.write(traceback.format_exc())
    except (OSError, UsageError):
        return ""
    return f": the details are in {path}"


def paths_out_of_apply(argv: list[str]) -> list[str]:
    """``clean --apply ID... PATH``: ``--apply`` takes every word after it, so a folder
    written last was read as an id ("required: PATH"). Words after ``--apply`` that name
    something on disk are the folders: they are moved in front of it (no id is a path)."""
    if "--apply" not in argv:
        return argv
    start = argv.index("--apply") + 1
    end = next((i for i in range(start, len(argv)) if argv[i].startswith("-")), len(argv))
    found = [w for w in argv[start:end] if os.path.lexists(w)]
    if not found:
        return argv
    ids = [w for w in argv[start:end] if w not in found]
    return [*argv[:start - 1], *found, "--apply", *ids, *argv[end:]]
