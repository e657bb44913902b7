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
else
  echo "No Firestore emulator on this machine (package google-cloud-cli-firestore-emulator): the emulated functions use the embedded store in $DATA_DIR"
fi
# Hosting serves dashboard/dist: built when missing or older than its sources, as npm start does (a rebuild
# empties dist first, which would pull the files from under anything else serving it).
if node --input-type=module -e 'const m = await import("./functions/src/surfaces/dashboard/dashboard.ts"); process.exit(m.buildIsStale("dashboard") ? 0 : 1)'; then
  npm run -w dashboard build >/dev/null
fi
# The functions' entry (functions/package.json main) is a bundle of functions/src/index.ts, rebuilt at every start
# (under a second). The app loads from functions/src, so the emulator's reload on a change picks up its edits; after
# editing index.ts itself while they run, `npm run build:functions` (the emulator reloads on the new bundle).
node scripts/build-functions.ts || exit 1
# A demo- project never reaches Google: firebase-admin takes the project from here instead of probing the
# cloud metadata server for it.
export GCLOUD_PROJECT=demo-bfo
config=firebase.json
# EMULATOR_PORT_BASE moves every emulator port of firebase.json by the same offset (default 5301: as written),
# so two checkouts can run side by side.
if [ -n "${EMULATOR_PORT_BASE:-}" ]; then
  config=.firebase-emulators.local.json
  node -e '
    const fs = require("fs"); const c = JSON.parse(fs.readFileSync("firebase.json", "utf8"));
    const shift = Number(process.env.EMULATOR_PORT_BASE) - 5301;
    if (!Number.isInteger(shift)) { console.error("EMULATOR_PORT_BASE must be a port number"); process.exit(2); }
    for (const e of Object.values(c.emulators)) if (e && typeof e.port === "number") e.port += shift;
    fs.writeFileSync(process.argv[1], JSON.stringify(c, null, 2));' "$config" || exit 2
fi
port_of() { node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).emulators[process.argv[2]].port)' "$config" "$1"; }
# The admin CLI of this checkout finds these settings (functions/src/localRun.ts) and opens the same store.
store_env=$(node -e '
  const e = process.env, out = { DATA_DIR: e.DATA_DIR, GCLOUD_PROJECT: e.GCLOUD_PROJECT };
  if (e.FIRESTORE_EMULATOR_HOST) Object.assign(out, { STORE: "firestore", FIRESTORE_EMULATOR_HOST: e.FIRESTORE_EMULATOR_HOST, CREDENTIALS_KEY: e.CREDENTIALS_KEY, FILES: "local" });
  out.TASKS = "cloud"; out.CLOUD_TASKS_EMULATOR_HOST = "127.0.0.1:" + process.argv[1];
  console.log(JSON.stringify(out));' "$(port_of tasks)")
run_file="${BFO_RUN_DIR:-$PWD}/.bfo-run.json"
printf '{"kind":"emulators","pid":%s,"storeEnv":%s,"url":"http://127.0.0.1:%s"}\n' "$$" "$store_env" "$(port_of hosting)" >"$run_file"
trap 'rm -f "$run_file"; kill -- "-$(cat "${TMPDIR:-/tmp}/firestore-emulator.pid" 2>/dev/null)" 2>/dev/null || true' EXIT
firebase --config "$config" emulators:start --project demo-bfo --only functions,hosting,tasks "$@"
