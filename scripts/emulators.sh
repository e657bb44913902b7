#!/usr/bin/env bash
# `npm run emulators`: Functions, Hosting and Cloud Tasks from firebase-tools, on gcloud's Firestore emulator
# when the machine has it (firebase-tools' own Firestore emulator needs a jar download that fails offline).
set -uo pipefail
cd "$(dirname "$0")/.."
export DATA_DIR="${DATA_DIR:-$PWD/.data}"
host=$(bash scripts/firestore-emulator.sh || true)
if [ -n "$host" ]; then
  export FIRESTORE_EMULATOR_HOST="$host"
  export CREDENTIALS_KEY="${CREDENTIALS_KEY:-local-emulator-credentials-key}"
  echo "Firestore emulator (gcloud) at $host: the emulated functions run on Firestore"
  trap 'kill -- "-$(cat "${TMPDIR:-/tmp}/firestore-emulator.pid")" 2>/dev/null || true' EXIT
else
  echo "No Firestore emulator on this machine (package google-cloud-cli-firestore-emulator): the emulated functions use the embedded store in $DATA_DIR"
fi
npm run build >/dev/null
firebase emulators:start --project demo-bfo --only functions,hosting,tasks "$@"
