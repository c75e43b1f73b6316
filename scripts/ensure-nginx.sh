#!/usr/bin/env bash
# The HTTPS proxy test (test/hostile/https-proxy.browser.test.ts) puts Debian's nginx in front of
# the server, as users run it. Installs nginx-light from Debian's packages when missing.
set -euo pipefail
if [ -x "${TRAILPROOF_NGINX:-/usr/sbin/nginx}" ]; then exit 0; fi
exec bash "$(dirname "$0")/apt-install.sh" "ensure-nginx: ${TRAILPROOF_NGINX:-/usr/sbin/nginx}" nginx-light
