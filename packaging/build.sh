#!/usr/bin/env bash
# Build the one-folder app into packaging/dist/mlspace/ (start it with ./mlspace, or
# double-click it after `packaging/dist/mlspace/mlspace --install-desktop`).
set -euo pipefail
cd "$(dirname "$0")"
python -m pip install --quiet 'pyinstaller>=6' -e '..'
python -m PyInstaller --noconfirm --clean --distpath dist --workpath build mlspace.spec
du -sh dist/mlspace
