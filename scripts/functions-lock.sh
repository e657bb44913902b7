#!/usr/bin/env bash
# Writes functions/package-lock.json, so Cloud Build (which installs functions/ on its own) gets the
# versions the root lockfile pinned, not whatever the ranges resolve to on deploy day.
# The root lock seeds the resolution; a test checks that the two agree on every dependency.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp functions/package.json "$work/package.json"
cp package-lock.json "$work/package-lock.json"
(cd "$work" && npm install --package-lock-only --ignore-scripts --no-audit --no-fund --workspaces=false >/dev/null)
cp "$work/package-lock.json" functions/package-lock.json
echo "functions/package-lock.json written"
