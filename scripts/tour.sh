#!/usr/bin/env bash
# The README's dashboard tour: the browser tests' own screenshots (360 px, Hebrew), copied to docs/tour/.
# Run after the browser tests (`npm test`, or `node --test test/dashboard/*.test.ts`), then commit docs/tour/.
set -euo pipefail
cd "$(dirname "$0")/.."
src=test-artifacts/dashboard
screens="sign-in home-ready payments payment-new payment suppliers invoices invoice folders reports statements statements-sources mailboxes automations-run accountant-zip employees-import form-review settings-team settings-api settings-integrations activity"
mkdir -p docs/tour
for s in $screens; do
  [ -f "$src/$s-360.png" ] || { echo "no screenshot $src/$s-360.png: run the browser tests first" >&2; exit 1; }
  cp "$src/$s-360.png" "docs/tour/$s.png"
done
echo "docs/tour: $(echo $screens | wc -w) screenshots"
