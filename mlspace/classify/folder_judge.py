"""A folder's context, from its name, its parent and the marker files it holds: the first
rule (in file order) that mentions the folder and fits decides; else the parent's context
passes down (mlspace.classify.rules.INHERITED). A folder no rule mentions, named with a
leading ordinal (``01_raw``, ``06_models``, ``8-reporting``: the layers of a pipeline's data
folder), is judged by the words after it: the number orders the folders, the words say what
each holds."""

from __future__ import annotations

import re

from mlspace.classify.rules import INHERITED, CompiledRules, Context

#: What mentions a folder: (candidate rules, whether the combined regex matched, the parent
#: names those rules ask for).
_Mention = tuple[tuple[int, ...], bool, frozenset[str]]
#: A short ordinal before a folder's words (a year, 2024_data, is no ordinal).
_ORDINAL = re.compile(r"\d{1,3}[_\-. ]+([A-Za-z].*)")


class FolderJudge:
    """Decides a folder's context from its name, its parent and the names inside it."""

    def __init__(self, compiled: CompiledRules) -> None:
        self.rules = compiled.dir_rules
        self.by_name = compiled.by_name
        self.by_marker = compiled.by_marker
        self.regex = compiled.dir_regex
        self.regex_rule = compiled.regex_rule
        self.patterns = compiled.dir_patterns
        # Any pattern rule may decide once the combined regex matched (see _decide).
        self._pattern_parents = frozenset().union(*(self.rules[i].parents for i in self.patterns))
        self._mentions: dict[tuple[str, frozenset[str]], _Mention] = {}
        self._verdicts: dict[tuple[str, frozenset[str], Context, str], tuple[Context, int]] = {}

    def judge(self, name: str, parent_name: str, parent: Context, present: frozenset[str]
              ) -> tuple[Context, int]:
        """The context of folder ``name`` given its parent and the marker names it holds, and
        the rule that decided it (-1: inherited). Workspaces repeat themselves (checkpoint-500
        in every run), so what mentions a name and each verdict are remembered; a verdict
        depends on the parent's name only when a rule that could decide it names that parent."""
        mentioned = self._mentions.get((name, present))
        if mentioned is None:
            mentioned = self._mentions[name, present] = self._mentioning(name, present)
        candidates, regex_matched, parent_names = mentioned
        if not candidates:  # most folders: no rule so much as mentions them
            ordered = _ORDINAL.fullmatch(name)
            if ordered is not None:
                return self.judge(ordered.group(1), parent_name, parent, present)
            return INHERITED[parent], -1
        # A run's checkpoint-500 sits in a parent named after the run: the parent's name is
        # part of the verdict only when a rule that could decide names it.
        key = (name, present, parent, parent_name if parent_name in parent_names else "")
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = self._decide(
                candidates, regex_matched, name, parent_name, parent, present)
        return verdict

    def _mentioning(self, name: str, present: frozenset[str]) -> _Mention:
        """(rules that mention the folder by name, regex or marker; whether the combined
        regex matched; the parent names that rules which could decide ask for)."""
        candidates = list(self.by_name.get(name, ()))
        match = self.regex.fullmatch(name) if self.regex is not None else None
        if match is not None:
            candidates.append(self.regex_rule[match.lastgroup or ""])
        for marker in present:
            candidates.extend(self.by_marker.get(marker, ()))
        ordered = tuple(sorted(set(candidates)))
        parent_names = self._pattern_parents if match is not None else frozenset()
        for index in ordered:
            if self.rules[index].parents:
                parent_names = parent_names | self.rules[index].parents
        return ordered, match is not None, parent_names

    def _decide(self, candidates: tuple[int, ...], regex_matched: bool, name: str,
                parent_name: str, parent: Context, present: frozenset[str]
                ) -> tuple[Context, int]:
        for index in candidates:
            if self._applies(index, name, parent_name, parent, present):
                return self.rules[index].context, index
        if regex_matched:
            # The combined regex reports only its first matching alternative; a later regex
            # rule may match too and fit where the first one did not.
            for index, pattern in self.patterns.items():
                if pattern.fullmatch(name) and self._applies(
                    index, name, parent_name, parent, present
                ):
                    return self.rules[index].context, index
        return INHERITED[parent], -1

    def _applies(self, index: int, name: str, parent_name: str, parent: Context,
                 present: frozenset[str]) -> bool:
        rule = self.rules[index]
        return (
            parent in rule.within
            and (not rule.parents or parent_name in rule.parents)
            and (not rule.markers or not rule.markers.isdisjoint(present))
            and (not rule.names or name in rule.names)
            and (not rule.regex or self.patterns[index].fullmatch(name) is not None)
        )
