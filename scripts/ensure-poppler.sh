#!/usr/bin/env bash
# Tests read generated PDFs back with poppler (pdftotext, pdftoppm); installed from Debian when missing.
set -euo pipefail
command -v pdftotext >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "The PDF tests need poppler (pdftotext, pdftoppm): apt-get install poppler-utils" >&2
    exit 1
  fi
fi
echo "Installing Debian's poppler-utils for the PDF tests…" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null
