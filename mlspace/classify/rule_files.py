"""The rule files: the default rules shipped with mlspace and the user's own rules.toml on
top, read, checked key by key and merged into one :class:`~mlspace.classify.rules.RuleSet`.

A user file that cannot be used (unreadable, not TOML, a rule with an unknown key or a bad
regex) never fails a scan: it is reported, naming the file and line, and the default rules
are used alone.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from mlspace import trust
from mlspace.assets import resource
from mlspace.classify.categories import Category
from mlspace.classify.rules import (
    ARTIFACT_KINDS,
    CONTEXT_BY_KEY,
    CORE_DUMP,
    DEFAULT_DIR_WITHIN,
    DEFAULT_FILE_WITHIN,
    MEDIA,
    TRACKER_DB,
    WEAK,
    Context,
    DirRule,
    FileRule,
    RuleSet,
)
from mlspace.safe_read import MAX_RECORD_BYTES, NOT_THERE, Unreadable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_DIR_KEYS = {"id", "names", "regex", "markers", "parents", "within", "context", "tool",
             "artifact", "refuted_by", "disabled"}
_FILE_KEYS = {"id", "names", "suffixes", "prefixes", "regex", "over_suffixes", "within",
              "category", "disabled", "weak"}
#: The file codes beyond the categories a rule's ``category`` may name.
_PSEUDO = {"media": MEDIA, "core-dump": CORE_DUMP, "tracker-db": TRACKER_DB}


class RuleError(ValueError):
    """A rules file that cannot be used; the message names the file and line."""


def default_rules_text() -> str:
    return resource("rules", "default.toml").read_text()


def user_rules_path() -> Path:
    from mlspace.config import config_dir

    return config_dir() / "rules.toml"


def load_rules(user_path: Path | None = None) -> RuleSet:
    """The default rules, with the user's file (if any) applied on top. A user file that
    cannot be used is reported in ``warnings`` and ignored: classification never fails
    because of it."""
    rules = parse_rules(default_rules_text(), "default rules")
    path = user_path if user_path is not None else user_rules_path()
    try:
        # Only a file of the user's that nobody else can change (mlspace.trust: a link to
        # one, a dotfiles manager's, is followed), read through the bounded reader: a FIFO
        # or a device there never blocks the scan.
        text = trust.read_file(path, MAX_RECORD_BYTES).decode("utf-8")
        user = parse_rules(text, str(path), allow_disabled=True)
    except Unreadable as err:
        if str(err) != NOT_THERE:
            rules.warnings.append(f"{path}: {err}; using the default rules only")
        return rules
    except (RuleError, UnicodeDecodeError) as err:
        rules.warnings.append(f"{err}; using the default rules only")
        return rules
    return merge_rules(rules, user)


def merge_rules(base: RuleSet, user: RuleSet) -> RuleSet:
    """User rules with new ids come first; a user rule with a default's id replaces it in
    place; a disabled one removes it."""
    merged = RuleSet([], [], base.warnings + user.warnings)
    for kind in ("dir_rules", "file_rules"):
        ours: list = getattr(user, kind)
        replacing = {r.id: r for r in ours}
        new = [r for r in ours if r.id not in {b.id for b in getattr(base, kind)}]
        kept = [replacing.get(r.id, r) for r in getattr(base, kind)]
        setattr(merged, kind, [r for r in new + kept if not isinstance(r, _Disabled)])
    return merged


@dataclass(frozen=True)
class _Disabled:
    id: str


def parse_rules(text: str, source: str, allow_disabled: bool = False) -> RuleSet:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RuleError(f"{source}: {err}") from None
    unknown_tables = set(data) - {"dir", "file"}
    if unknown_tables:
        raise RuleError(f"{source}: unknown section(s) {sorted(unknown_tables)}; use [[dir]] "
                        "or [[file]]")
    lines = _id_lines(text)
    dir_rules = [
        _parse_rule(raw, lines, source, "dir", allow_disabled) for raw in data.get("dir", [])
    ]
    file_rules = [
        _parse_rule(raw, lines, source, "file", allow_disabled) for raw in data.get("file", [])
    ]
    return RuleSet(dir_rules, file_rules)


#: A rule's ``id = "..."`` line, for the line number of a message about it.
_ID_LINE = re.compile(r"""^\s*id\s*=\s*["']([^"'\n]*)["']""")


def _id_lines(text: str) -> dict[str, int]:
    """The line of each rule id in the file (its first), found in one pass: a search per
    rule cost tens of milliseconds at every start of the program."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = _ID_LINE.match(line)
        if match:
            lines.setdefault(match.group(1), number)
    return lines


def _parse_rule(
    raw: dict, lines: dict[str, int], source: str, kind: str, allow_disabled: bool
) -> DirRule | FileRule | _Disabled:
    rule_id = raw.get("id")
    line = lines.get(rule_id) if isinstance(rule_id, str) else None
    where = f"{source}, line {line}" if line else source

    def fail(message: str) -> RuleError:
        return RuleError(f"{where}: [[{kind}]] rule {rule_id!r}: {message}")

    if not isinstance(rule_id, str) or not rule_id:
        raise RuleError(f"{source}: a [[{kind}]] rule has no id")
    allowed = _DIR_KEYS if kind == "dir" else _FILE_KEYS
    extra = set(raw) - allowed
    if extra:
        raise fail(f"unknown key(s) {sorted(extra)}; allowed: {sorted(allowed)}")
    if raw.get("disabled"):
        if not allow_disabled:
            raise fail("disabled rules belong in the user's rules file")
        return _Disabled(rule_id)

    def strings(key: str) -> tuple[str, ...]:
        value = raw.get(key, [])
        if isinstance(value, str) or not all(isinstance(v, str) for v in value):
            raise fail(f"{key} must be a list of strings")
        return tuple(value)

    def contexts(default: frozenset[Context]) -> frozenset[Context]:
        if "within" not in raw:
            return default
        try:
            return frozenset(CONTEXT_BY_KEY[c] for c in strings("within"))
        except KeyError as err:
            raise fail(f"unknown context {err.args[0]!r} in within") from None

    regex = raw.get("regex")
    if regex is not None:
        try:
            compiled = re.compile(regex)
        except re.error as err:
            raise fail(f"bad regex: {err}") from None
        if compiled.groupindex:
            raise fail("regex must not use named groups")
    if kind == "dir":
        if not (raw.get("names") or regex or raw.get("markers")):
            raise fail("needs names, regex or markers")
        if raw.get("context") not in CONTEXT_BY_KEY:
            raise fail(f"context must be one of {sorted(CONTEXT_BY_KEY)}")
        artifact = raw.get("artifact")
        if artifact is not None and artifact not in ARTIFACT_KINDS:
            raise fail(f"artifact must be one of {sorted(ARTIFACT_KINDS)}")
        for suffix in strings("refuted_by"):
            if not suffix.startswith("."):
                raise fail(f"suffix {suffix!r} must start with a dot")
        return DirRule(
            id=rule_id,
            context=CONTEXT_BY_KEY[raw["context"]],
            names=frozenset(strings("names")),
            regex=regex,
            markers=frozenset(strings("markers")),
            parents=frozenset(strings("parents")),
            within=contexts(DEFAULT_DIR_WITHIN),
            tool=raw.get("tool"),
            artifact=artifact,
            refuted_by=frozenset(s.lower() for s in strings("refuted_by")),
        )
    if not (raw.get("names") or raw.get("suffixes") or raw.get("prefixes") or regex):
        raise fail("needs names, suffixes, prefixes or regex")
    category = raw.get("category", "")
    try:
        code = _PSEUDO[category] if category in _PSEUDO else int(Category.from_id(category))
    except ValueError as err:
        raise fail(str(err)) from None
    for suffix in strings("suffixes") + strings("over_suffixes"):
        if not suffix.startswith("."):
            raise fail(f"suffix {suffix!r} must start with a dot")
    weak = raw.get("weak", False)
    if not isinstance(weak, bool):
        raise fail("weak must be true or false")
    if weak and code not in set(Category):
        raise fail("only a category can be weak")
    return FileRule(
        id=rule_id,
        code=code | WEAK if weak else code,
        names=frozenset(strings("names")),
        suffixes=tuple(s.lower() for s in strings("suffixes")),
        prefixes=strings("prefixes"),
        regex=regex,
        over_suffixes=frozenset(s.lower() for s in strings("over_suffixes")),
        within=contexts(DEFAULT_FILE_WITHIN),
    )
