#!/usr/bin/env bash
# The console's browser tests drive Debian's Chromium (/usr/bin/chromium) with playwright-core,
# whose own browser download does not work here. Installs it from Debian's packages when missing.
set -euo pipefail
if [ -x "${TRAILPROOF_CHROMIUM:-/usr/bin/chromium}" ]; then exit 0; fi
exec bash "$(dirname "$0")/apt-install.sh" "ensure-chromium: ${TRAILPROOF_CHROMIUM:-/usr/bin/chromium}" chromium
