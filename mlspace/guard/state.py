"""What the guard remembers between rounds, in one file of mlspace's state folder: the
free-space samples of each filesystem, the runs it follows, the open episode (warned,
acted) and the last round's forecast for ``mlspace guard status`` and the app.

It is read as every other store of mlspace is (mlspace.trust): from a folder and a file
that are the user's and closed to others, through the bounded reader, so a planted or
swollen file steers nothing. A file that cannot be used is started afresh (it holds only
what the guard learns again within a few rounds). It is written whole to a temporary name
and renamed, so a guard killed mid-write leaves the previous state, never half of one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from mlspace import trust
from mlspace.config import state_dir
from mlspace.guard.runs import Watched
from mlspace.guard.samples import Sample
from mlspace.safe_read import NOT_THERE, Unreadable

STATE_LIMIT = 16 << 20
_NAME = "guard.json"


def state_file() -> Path:
    return state_dir() / _NAME


@dataclass
class Episode:
    """One stretch of time the disk was in danger: it is warned about once."""

    since: float
    warned: bool = False
    acted: int = 0  # rounds that freed something
    freed: int = 0  # what those rounds gave back (statvfs)


@dataclass
class DiskState:
    mount: str
    samples: list[Sample] = field(default_factory=list)
    episode: Episode | None = None
    last: dict = field(default_factory=dict)  # the last round's status (plain data)

    def to_json(self) -> dict:
        return {"mount": self.mount, "samples": [s.as_row() for s in self.samples],
                "episode": None if self.episode is None else vars(self.episode),
                "last": self.last}

    @classmethod
    def from_json(cls, data: dict) -> DiskState:
        episode = data.get("episode")
        return cls(str(data["mount"]),
                   [Sample(float(t), int(a), int(lo), int(r))
                    for t, a, lo, r in data.get("samples", [])],
                   Episode(**episode) if isinstance(episode, dict) else None,
                   dict(data.get("last") or {}))


@dataclass
class GuardState:
    disks: dict[str, DiskState] = field(default_factory=dict)  # mount point -> state
    runs: dict[str, Watched] = field(default_factory=dict)  # run folder -> what is known
    parents: dict[str, dict[str, int]] = field(default_factory=dict)  # root -> run parents
    children: dict[str, list[str]] = field(default_factory=dict)  # run parent -> its folders
    learned: dict[str, float] = field(default_factory=dict)  # root -> when its runs were
    problem: str = ""  # why the saved state was not used, if it was not

    def to_json(self) -> dict:
        return {"version": 1, "disks": {m: d.to_json() for m, d in self.disks.items()},
                "runs": [w.to_json() for w in self.runs.values()],
                "parents": self.parents, "children": self.children,
                "learned": self.learned}


def load(path: Path | None = None) -> GuardState:
    """The saved state, or a fresh one (with ``problem`` saying why, when a file was
    there but could not be used)."""
    path = path or state_file()
    try:
        data = json.loads(trust.store(path.parent).read(path.name, STATE_LIMIT))
        if not isinstance(data, dict) or data.get("version") != 1:
            raise ValueError("not a guard state of this version")
        return GuardState({str(m): DiskState.from_json(d)
                           for m, d in dict(data.get("disks", {})).items()},
                          {w.folder: w for w in map(Watched.from_json, data.get("runs", []))},
                          {str(r): {str(p): int(t) for p, t in dict(v).items()}
                           for r, v in dict(data.get("parents", {})).items()},
                          {str(p): [str(n) for n in v]
                           for p, v in dict(data.get("children", {})).items()},
                          {str(r): float(t) for r, t in dict(data.get("learned", {})).items()})
    except Unreadable as err:
        missing = str(err) == NOT_THERE
        return GuardState(problem="" if missing else trust.reason(path, err))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as err:
        return GuardState(problem=f"{path}: started afresh ({err})")


def save(state: GuardState, path: Path | None = None) -> None:
    """Write the state whole, then rename it into place."""
    trust.write_private(path or state_file(),
                        json.dumps(state.to_json(), separators=(",", ":")))  # ASCII: JSON escapes


