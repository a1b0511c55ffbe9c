#!/bin/sh
# The image's roles, run with node directly (not through npm) so signals reach the process.
set -e
case "$1" in
  web)
    node apps/cli/src/start/require-env.mjs web
    cd apps/web
    exec node --import ./http-edge.mjs ../../node_modules/next/dist/bin/next start -p "$PORT"
    ;;
  worker)
    node apps/cli/src/start/require-env.mjs worker
    cd apps/worker
    exec node --import tsx src/main.ts
    ;;
  *)
    exec "$@"
    ;;
esac
