"""mlspace: see where the disk went in machine-learning workspaces, and get it back safely."""

__version__ = "0.1.0"
