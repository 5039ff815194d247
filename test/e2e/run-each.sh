#!/bin/sh
# The e2e suite, one mocha process per file (each file starts its own code-server and lab anyway).
# In one process, a proof through a login node (fleetVia) hung at the same step in two CI-like runs
# after the files before it, and passed every time on its own: each file gets a fresh process, as in
# development. Every file prints its own "N passed, N failed" line (.ci/run adds them up). Exits
# non-zero if any file failed.
set -u
status=0
for f in test/e2e/*.test.ts; do
  npx mocha -r tsx/cjs --extension ts --reporter ./test/reporter.js --timeout 60000 --slow 10000 "$f" || status=1
done
exit $status
