#!/usr/bin/env bash
# The console's browser tests drive Debian's Chromium (/usr/bin/chromium) with playwright-core,
# whose own browser download does not work here. Installs it from Debian's packages when missing
# (as root, or through sudo).
set -euo pipefail
if [ -x "${TRAILPROOF_CHROMIUM:-/usr/bin/chromium}" ]; then exit 0; fi
as_root=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "ensure-chromium: /usr/bin/chromium not found; install it: apt-get install chromium" >&2; exit 1; }
  as_root=(sudo)
fi
"${as_root[@]}" apt-get update -qq >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
