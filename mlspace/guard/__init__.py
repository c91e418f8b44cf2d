"""The guard: watch the filesystems of some workspaces, forecast when they fill, warn the
researcher before a training run dies of a full disk, and, only where the policy allows,
free space in a fixed order.

It sits above act (it asks act to purge) and below cli and ui, which show what it found;
it imports neither. Each module has one job: :mod:`.samples` (free space, and how often to
look), :mod:`.trend` (a robust rate), :mod:`.cadence` (a run's checkpoints),
:mod:`.forecast` (time to full, next checkpoints), :mod:`.runs` (learning what the runs
write, cheaply), :mod:`.state` (what it remembers between rounds), :mod:`.freeing`
(acting), :mod:`.notify` (warning), :mod:`.rounds` (one round of all of it) and
:mod:`.service` (the systemd user service).
"""
