#!/usr/bin/env bash
# The page tests drive Debian's chromium through playwright-core; no tool ever downloads a browser.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "The page tests need Debian's chromium at /usr/bin/chromium: apt-get install chromium" >&2
    exit 1
  fi
fi
echo "Installing Debian's chromium for the page tests…" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
