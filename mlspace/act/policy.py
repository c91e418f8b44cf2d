"""Policy files: what ``mlspace apply-policy`` may do with nobody watching.

A policy is TOML (``mlspace policy init`` writes a commented example, :data:`TEMPLATE`). Per
folder glob a ``[[rule]]`` says how many checkpoints to keep, how old an item must be, which
suggestions may run unattended (``allow``: "safe" by default; a risk level or a policy
name), and whether items go to the trash or the cold tier. Caps bound what one run may
remove. A mistake is an error with its line, never a guess: an unattended run that
misread its policy would remove the wrong things while nobody looks.
"""

from __future__ import annotations

import fnmatch
import math
import os
import re
from dataclasses import dataclass, field, replace

from mlspace import fmt, trust
from mlspace.act.policy_guard import GuardSettings, read_guard
from mlspace.advise import RISKY, SAFE, AdviceSettings, Plan, PlanItem, Suggestion
from mlspace.advise.archive import ARCHIVE_POLICIES, ArchiveAges
from mlspace.advise.model import REVIEW
from mlspace.classify import Inventory
from mlspace.config import tomllib
from mlspace.safe_read import Unreadable

#: Every suggestion policy a rule may name in ``allow`` (a typo must not silently allow
#: nothing). Keep in step with mlspace.advise.policies and .duplicates.
KNOWN_POLICIES = ("checkpoint-retention", "strip-resume-state", "augmented-copies",
                  "debug-dumps", "crash-leftovers", "python-caches", "datasets-cache",
                  "hub-detached", "log-archives", "duplicates", *ARCHIVE_POLICIES)
RISKS = (SAFE, REVIEW, RISKY)
ACTIONS = ("trash", "archive")
_AGES = {"debug_days": "debug_min_age_days", "augmented_days": "augmented_min_age_days",
         "logs_days": "logs_min_age_days"}
_ARCHIVE_AGES = ("archive_checkpoints_days", "archive_datasets_days", "archive_logs_days")
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


#: What `mlspace policy init` writes: every setting, commented.
TEMPLATE = """\
# mlspace policy: what `mlspace apply-policy` may do by itself (from a timer, or cron).
# Check what it would do first:  mlspace apply-policy WORKSPACE --dry-run
version = 1

# What allowed items become: "trash" (the OS trash; `mlspace undo ID` puts them back) or
# "archive" (moved to the cold tier, a link left in their place). Rules may say otherwise.
action = "trash"
# archive_root = "/mnt/cold/mlspace"   # the cold tier (default: archive_root in config.toml)

# What this policy's runs moved to the trash is deleted for good after this many days (the
# disk gets the space back then; until then `mlspace undo ID` puts it back). Default:
# trash_days in config.toml (14). 0 keeps it until `mlspace purge`.
# purge_after_days = 7

# Leave anything written in the last week alone, under every rule (a rule may set its own).
min_age_days = 7

# What one run may remove at most, on this disk: a size ("50 GB", "200 GiB") or a number
# of items. The run stops at the first item past either cap (and exits 1).
max_bytes = "100 GB"
max_items = 500

# `mlspace guard` watches the disk and warns before it fills. With act = true it may also
# free space by itself when the disk would fill before the next checkpoint lands: first
# what mlspace moved to the trash (oldest first), then the rules' safe suggestions,
# deleted for good at once, until keep_free is free. Never a run's best or latest
# checkpoint, anything written in the last recent_minutes, raw data, or a review item.
# [guard]
# act = true
# keep_free = "50 GiB"
# warn_hours = 2             # warn when the disk fills in less than this
# recent_minutes = 10
# mail = "me@example.org"    # also mail warnings (through sendmail)

# Ages, in days, before things are suggested (as in the app's settings).
[ages]
debug_days = 14                # profiler traces, core dumps
augmented_days = 30            # augmented / preprocessed copies
logs_days = 90                 # log folders to compress
archive_checkpoints_days = 60  # kept checkpoints of finished runs, to the cold tier
archive_datasets_days = 180    # raw and processed datasets, to the cold tier
archive_logs_days = 180        # log archives, to the cold tier

# Rules, first match wins. `folders`: globs relative to the folder given to apply-policy
# (or absolute); an item matches when it or a folder above it does; "*" crosses folders.
# Items no rule covers are left alone.
[[rule]]
folders = ["outputs/*", "runs/*", "checkpoints/*"]
keep_best = 1                  # checkpoints kept per run by its best metric
keep_latest = 2                # and the latest ones
# Which suggestions may run unattended: risk levels ("safe", "review", "risky") and/or
# policy names (e.g. "crash-leftovers", "augmented-copies", "archive-datasets").
# Only "safe" ones by default; review and risky ones only when named here.
allow = ["safe"]
action = "trash"

[[rule]]
folders = ["*"]
allow = ["safe"]
"""


class PolicyError(Exception):
    """The policy cannot be used; ``str(err)`` is "FILE:LINE: what is wrong"."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")
        self.line = line


class UntrustedPolicy(PolicyError):
    """The policy file is another user's, or others could change it (mlspace.trust):
    ``str(err)`` says which and how to fix it."""

    def __init__(self, path: str, err: trust.Untrusted) -> None:
        Exception.__init__(self, str(err))
        self.line = None
        self.foreign = err.foreign


@dataclass(frozen=True)
class Rule:
    folders: tuple[str, ...]
    allow: frozenset[str] = frozenset({SAFE})
    action: str = "trash"
    keep: tuple[int, int] | None = None  # (best, latest) for the checkpoint series inside
    min_age_days: float = 0.0
    line: int = 0

    def covers(self, rel: str, path: str) -> bool:
        """Does a glob name the item, or a folder above it? (``*`` crosses folders.)"""
        candidates = [rel, *_parents(rel)]
        return any(fnmatch.fnmatchcase(path if g.startswith("/") else c, g)
                   for g in self.folders for c in candidates)

    def allows(self, suggestion: Suggestion) -> bool:
        return suggestion.risk in self.allow or suggestion.policy in self.allow


@dataclass(frozen=True)
class Policy:
    path: str
    rules: tuple[Rule, ...]
    action: str = "trash"
    archive_root: str | None = None
    max_bytes: int | None = None
    max_items: int | None = None
    ages: dict[str, float] = field(default_factory=dict)  # TOML [ages] keys
    #: Days after which what mlspace moved to the trash from these folders is deleted for
    #: good; None: trash_days of config.toml.
    purge_after_days: float | None = None
    #: The [guard] section: may ``mlspace guard`` free space here by itself; None: no
    #: section (the guard watches and warns only).
    guard: GuardSettings | None = None

    @property
    def cap_text(self) -> str:
        caps = [f"{fmt.size(self.max_bytes)}" if self.max_bytes is not None else "",
                fmt.plural(self.max_items, "item") if self.max_items is not None else ""]
        return " or ".join(c for c in caps if c) + " per run"

    @property
    def archives(self) -> bool:
        return any(r.action == "archive" for r in self.rules)

    def rule_for(self, path: str, roots: tuple[str, ...]) -> Rule | None:
        root = next((r for r in roots if path.startswith(r.rstrip("/") + "/")), "")
        rel = path[len(root.rstrip("/")) + 1:] if root else path.lstrip("/")
        return next((r for r in self.rules if r.covers(rel, path)), None)

    def archive_ages(self, defaults: ArchiveAges) -> ArchiveAges:
        """The [ages] the policy gives for archiving, else ``defaults`` (config.toml's)."""
        given = self.ages
        return ArchiveAges(given.get("archive_checkpoints_days", defaults.checkpoints),
                           given.get("archive_datasets_days", defaults.datasets),
                           given.get("archive_logs_days", defaults.logs))

    def advice_settings(self, inv: Inventory, roots: tuple[str, ...]) -> AdviceSettings:
        keeps = {}
        for s in inv.series:
            rule = self.rule_for(s.path, roots)
            if rule is not None and rule.keep is not None:
                keeps[s.id] = rule.keep
        ages = {_AGES[k]: v for k, v in self.ages.items() if k in _AGES}
        return AdviceSettings(keep_per_series=keeps, **ages)  # type: ignore[arg-type]


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[:n]) for n in range(1, len(parts))]


# ----------------------------------------------------------------------------- reading
def load(path: str) -> Policy:
    """The policy at ``path``, checked. It is taken only from a file of the user's (or
    root's) that nobody else can change (mlspace.trust; a link to one is followed)."""
    try:
        text = trust.read_file(path, limit=1 << 20).decode("utf-8", "replace")
    except trust.Untrusted as err:
        raise UntrustedPolicy(path, err) from None
    except Unreadable as err:
        raise PolicyError(path, None, f"cannot be read: {err}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        match = re.search(r"at line (\d+)", str(err))
        raise PolicyError(path, int(match.group(1)) if match else None, str(err)) from None
    return _Reader(path, text).policy(data)


class _Reader:
    """Checks a parsed policy, naming the line of each mistake."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines: dict[tuple[str, str], int] = {}
        section = ""
        rules = 0
        for n, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("[["):
                rules += 1
                section = f"rule{rules}"
                self.lines[(section, "")] = n
            elif stripped.startswith("["):
                section = stripped.strip("[] ")
                self.lines[(section, "")] = n
            elif (m := re.match(r"([A-Za-z0-9_-]+)\s*=", stripped)):
                self.lines.setdefault((section, m.group(1)), n)

    def fail(self, section: str, key: str, message: str) -> PolicyError:
        line = self.lines.get((section, key)) or self.lines.get((section, ""))
        return PolicyError(self.path, line, message)

    def policy(self, data: dict) -> Policy:
        top = {"version", "action", "archive_root", "max_bytes", "max_items", "ages", "rule",
               "purge_after_days", "min_age_days", "guard"}
        for key in data:
            if key not in top:
                raise self.fail("", key, f"unknown setting {key!r}")
        if data.get("version", 1) != 1:
            raise self.fail("", "version", "only version = 1 is known")
        action = self.choice("", "action", data.get("action", "trash"), ACTIONS)
        root = data.get("archive_root")
        if root is not None and (not isinstance(root, str) or not root.strip()):
            raise self.fail("", "archive_root", "archive_root must be a folder path")
        rules_data = data.get("rule", [])
        if not isinstance(rules_data, list) or not rules_data:
            raise self.fail("", "rule", "the policy needs at least one [[rule]]")
        age = self.days("", "min_age_days", data.get("min_age_days", 0.0)) or 0.0
        rules = tuple(self.rule(f"rule{n}", r, action, age)
                      for n, r in enumerate(rules_data, 1))
        return Policy(self.path, rules, action,
                      os.path.abspath(os.path.expanduser(root)) if root else None,
                      self.size("", "max_bytes", data.get("max_bytes")),
                      self.count("", "max_items", data.get("max_items")),
                      self.ages(data.get("ages", {})),
                      self.days("", "purge_after_days", data.get("purge_after_days")),
                      read_guard(self, data.get("guard")))

    def rule(self, section: str, data: dict, action: str, min_age: float) -> Rule:
        """One [[rule]]; ``action`` and ``min_age`` are the policy's, for what it leaves
        out."""
        known = {"folders", "allow", "action", "keep_best", "keep_latest", "min_age_days"}
        for key in data:
            if key not in known:
                raise self.fail(section, key, f"unknown rule setting {key!r}")
        folders = data.get("folders")
        if isinstance(folders, str):
            folders = [folders]
        if not isinstance(folders, list) or not folders or \
                not all(isinstance(f, str) and f for f in folders):
            raise self.fail(section, "folders", "folders must be a list of globs")
        allow = data.get("allow", [SAFE])
        if not isinstance(allow, list):
            raise self.fail(section, "allow", "allow must be a list")
        for name in allow:
            if name not in RISKS and name not in KNOWN_POLICIES:
                raise self.fail(section, "allow", f"unknown risk or policy {name!r} (risks: "
                                f"{', '.join(RISKS)}; policies: {', '.join(KNOWN_POLICIES)})")
        keep = None
        if "keep_best" in data or "keep_latest" in data:
            best = self.count(section, "keep_best", data.get("keep_best", 1), minimum=0)
            latest = self.count(section, "keep_latest", data.get("keep_latest", 2), minimum=1)
            keep = (best or 0, latest or 1)
        age = self.days(section, "min_age_days", data.get("min_age_days", min_age))
        return Rule(tuple(folders), frozenset(allow),
                    self.choice(section, "action", data.get("action", action), ACTIONS),
                    keep, age or 0.0, self.lines.get((section, ""), 0))

    def choice(self, section: str, key: str, value: object, options: tuple[str, ...]) -> str:
        if value not in options:
            raise self.fail(section, key, f"{key} must be one of: {', '.join(options)}")
        return str(value)

    def count(self, section: str, key: str, value: object, minimum: int = 1) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(section, key, f"{key} must be a whole number, {minimum} or more")
        return value

    def size(self, section: str, key: str, value: object) -> int | None:
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(value))
        unit = match.group(2).lower() if match else ""
        if not isinstance(value, str) or not match or unit not in _UNITS:
            raise self.fail(section, key, f"{key} must be bytes or a size like \"50 GB\"")
        size = int(float(match.group(1)) * _UNITS[unit])
        if size <= 0:
            raise self.fail(section, key, f"{key} must be more than 0")
        return size

    def days(self, section: str, key: str, value: object) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not math.isfinite(value) or value < 0:
            raise self.fail(section, key, f"{key} must be a number of days, 0 or more")
        return float(value)

    def ages(self, data: object) -> dict[str, float]:
        if not isinstance(data, dict):
            raise self.fail("", "ages", "[ages] must be a table")
        for key, value in data.items():
            if key not in _AGES and key not in _ARCHIVE_AGES:
                raise self.fail("ages", key, f"unknown age {key!r}")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value) or value < 0:
                raise self.fail("ages", key, f"{key} must be a number of days, 0 or more")
        return {k: float(v) for k, v in data.items()}


# --------------------------------------------------------------------------- selecting
@dataclass(frozen=True)
class Selection:
    """What one run will do, and what it leaves, with why."""

    work: tuple[tuple[Suggestion, str], ...]  # (suggestion cut to its allowed items, action)
    held: tuple[tuple[str, str], ...]  # (path, why): not the policy's to decide
    capped: tuple[tuple[str, str], ...]  # (path, why): allowed, but past the run's cap

    @property
    def items(self) -> int:
        return sum(len(s.items) for s, _ in self.work)

    @property
    def bytes(self) -> int:
        return sum(s.bytes for s, _ in self.work)


def select(plan: Plan, policy: Policy, now: float) -> Selection:
    """The items the policy lets run, largest suggestion first, up to its caps (the cap
    stops the run: nothing after the first item over it is taken)."""
    picked: dict[tuple[str, str], list[PlanItem]] = {}
    held: list[tuple[str, str]] = []
    capped: list[tuple[str, str]] = []
    total = count = 0
    for suggestion in plan.suggestions:
        for item in suggestion.items:
            rule = policy.rule_for(item.path, plan.roots)
            why = _not_allowed(suggestion, item, rule, now)
            if why is not None:
                held.append((item.path, why))
                continue
            assert rule is not None
            over = (policy.max_bytes is not None and total + item.disk_usage > policy.max_bytes
                    ) or (policy.max_items is not None and count + 1 > policy.max_items)
            if capped or over:
                capped.append((item.path, f"the policy's cap ({policy.cap_text}) was reached"))
                continue
            total, count = total + item.disk_usage, count + 1
            action = "archive" if suggestion.policy in ARCHIVE_POLICIES else rule.action
            picked.setdefault((suggestion.id, action), []).append(item)
    by_id = {s.id: s for s in plan.suggestions}
    work = tuple((replace(by_id[sid], items=tuple(items)), action)
                 for (sid, action), items in picked.items())
    return Selection(work, tuple(held), tuple(capped))


def _not_allowed(suggestion: Suggestion, item: PlanItem, rule: Rule | None,
                 now: float) -> str | None:
    if rule is None:
        return "no rule of the policy covers this folder"
    if not rule.allows(suggestion):
        return (f"{suggestion.risk} ({suggestion.policy}): the rule at line {rule.line} "
                "does not allow it")
    if rule.min_age_days and now - item.mtime < rule.min_age_days * 86400:
        return f"younger than the rule's {rule.min_age_days:g} days"
    return None
