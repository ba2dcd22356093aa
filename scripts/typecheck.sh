#!/usr/bin/env bash
# mypy --strict over the four packages under their installed names (vigia.*). mypy cannot
# follow setuptools' editable import hook, so the names are laid out as links in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${UV_PROJECT_ENVIRONMENT:-.venv}
mkdir -p build/typecheck/vigia
for p in ingest zones alerts service; do ln -sfn "../../../$p" "build/typecheck/vigia/$p"; done
"$VENV/bin/mypy" "$@"
