#!/usr/bin/env bash
# Vendors the dashboard's map library from the npm registry at a pinned version, so the
# page works with no internet: `npm pack` in a scratch folder (no node_modules here, no
# build), the integrity of the tarball checked against the registry's, and only the
# runtime files copied with their licence. Run again after changing MAPLIBRE_VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
MAPLIBRE_VERSION=6.17.0
DEST=service/http/static/vendor/maplibre-gl
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

(cd "$SCRATCH" && npm pack --silent "maplibre-gl@${MAPLIBRE_VERSION}" >/dev/null)
TARBALL="$SCRATCH/maplibre-gl-${MAPLIBRE_VERSION}.tgz"
want=$(npm view "maplibre-gl@${MAPLIBRE_VERSION}" dist.integrity)
got="sha512-$(openssl dgst -sha512 -binary "$TARBALL" | base64 -w0)"
if [ "$want" != "$got" ]; then
  echo "integrity mismatch: registry $want, tarball $got" >&2
  exit 1
fi
tar -xzf "$TARBALL" -C "$SCRATCH"
mkdir -p "$DEST"
# maplibre-gl.mjs finds its worker next to itself (import.meta.url), so both go together
for f in maplibre-gl.mjs maplibre-gl-worker.mjs maplibre-gl.css; do
  cp "$SCRATCH/package/dist/$f" "$DEST/$f"
done
cp "$SCRATCH/package/LICENSE.txt" "$DEST/LICENSE.txt"
cat > "$DEST/VERSION" <<INFO
maplibre-gl ${MAPLIBRE_VERSION} (BSD-3-Clause, LICENSE.txt)
from the npm registry, tarball integrity ${want}
files: dist/maplibre-gl.mjs dist/maplibre-gl-worker.mjs dist/maplibre-gl.css LICENSE.txt
INFO
echo "vendored maplibre-gl ${MAPLIBRE_VERSION} into ${DEST}"
