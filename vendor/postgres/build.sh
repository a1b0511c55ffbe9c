#!/usr/bin/env bash
# Rebuilds the tarball next to this script: npm's postgres 3.4.9 with next-write.patch and
# stale-query.patch applied to its three copies of connection.js (ESM, CommonJS, Cloudflare),
# pipelined-begin.patch and transaction-onclose.patch to those of index.js, and
# origin-stack.patch to those of query.js. See README.md for why.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=3.4.9
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack "postgres@$version" --silent >/dev/null
tar xzf "postgres-$version.tgz"
cd package
for fix in next-write stale-query pipelined-begin transaction-onclose origin-stack; do
  patch -p1 --no-backup-if-mismatch --forward < "$here/$fix.patch"
done
npm pkg set version="$version-switchboard.4"
# Its build scripts need files npm does not ship; an install must not try to run them.
npm pkg delete scripts
npm pack --ignore-scripts --silent --pack-destination "$here" >/dev/null
ls "$here"/*.tgz
