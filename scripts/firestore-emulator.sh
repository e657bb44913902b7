#!/usr/bin/env bash
# Starts the Firestore emulator when this machine has it (gcloud's firestore-emulator component) and
# prints its host:port; prints nothing otherwise. The Firestore store contract then runs against it.
set -uo pipefail
command -v gcloud >/dev/null 2>&1 || exit 0
gcloud components list --only-local-state --format='value(id)' 2>/dev/null | grep -qx 'cloud-firestore-emulator' \
  || dpkg -s google-cloud-cli-firestore-emulator >/dev/null 2>&1 || exit 0
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
setsid gcloud emulators firestore start --host-port="127.0.0.1:$port" >"${TMPDIR:-/tmp}/firestore-emulator.log" 2>&1 &
# setsid makes it a process group of its own, so stopping it stops the Java server too.
echo $! >"${TMPDIR:-/tmp}/firestore-emulator.pid"
for _ in $(seq 1 60); do
  if curl -s "http://127.0.0.1:$port" >/dev/null 2>&1; then echo "127.0.0.1:$port"; exit 0; fi
  sleep 1
done
exit 0
