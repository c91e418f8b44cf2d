"""The file rules applied to one name at a time: for the few names whose extension alone
cannot decide (unknown in a context with prefix or regex rules, or contested by a
multi-dot suffix such as ``.pt.trace.json``)."""

from __future__ import annotations

from mlspace.classify.rules import DEFAULT_CATEGORY, SLOW, Context, FileTable, guessed_default


def file_codes(names: list[str], table: FileTable, ctx: Context) -> bytearray:
    """A code per name: a Category value (marked WEAK where only a guess decided it), or
    MEDIA / CORE_DUMP / TRACKER_DB to be resolved later (per folder, or by the header)."""
    if table.empty:
        return bytearray([DEFAULT_CATEGORY[ctx]]) * len(names)
    names_get = table.names.get
    ext_get = table.extensions.get
    out = bytearray(len(names))
    for i, name in enumerate(names):
        code = names_get(name)
        if code is None:
            dot = name.rfind(".")
            ext = name[dot:].lower() if dot > 0 else ""
            code = ext_get(ext)
            if code is None:
                # No rule knows this extension (a multi-dot suffix ending in it would have
                # made it SLOW): only a prefix or regex rule can say more.
                code = _rule_code(name, table)
                code = guessed_default(ctx, ext) if code is None else code
            elif code == SLOW:
                code = _slow_code(name, table, guessed_default(ctx, ext))
        out[i] = code
    return out


def _rule_code(name: str, table: FileTable) -> int | None:
    """What the prefix and regex rules say (the earliest matching rule wins), if anything."""
    best: tuple[int, int] | None = None  # (rule order, code)
    if table.prefixes and name.startswith(table.prefixes):
        for prefix, code, order in table.prefix_codes:
            if name.startswith(prefix):
                if order < table.first_regex_order:
                    return code
                best = (order, code)
                break
    for regex in (table.regex, table.hinted_regex):
        if regex is None or (
            regex is table.hinted_regex
            and name[name.rfind("."):].lower() not in table.hinted_suffixes
        ):
            continue
        match = regex.fullmatch(name)
        if match is not None:
            code, order = table.regex_codes[match.lastgroup or ""]
            if best is None or order < best[0]:
                best = (order, code)
    return best[1] if best is not None else None


def _slow_code(name: str, table: FileTable, default: int) -> int:
    """Prefix and regex rules, then the longest known suffix."""
    code = _rule_code(name, table)
    if code is not None:
        return code
    lower = name.lower()
    dot = lower.find(".", 1)
    while dot > 0:
        suffix = lower[dot:]
        code = table.long_suffixes.get(suffix)
        if code is None and "." not in suffix[1:]:
            code = table.extensions.get(suffix)
        if code is not None and code != SLOW:
            return code
        dot = lower.find(".", dot + 1)
    return default
