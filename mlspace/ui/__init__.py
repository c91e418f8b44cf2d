"""The desktop app (PySide6 + pyqtgraph): the only package of mlspace that imports Qt."""
