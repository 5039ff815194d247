#!/bin/sh
# The e2e suite, one mocha process per file (each file starts its own code-server and lab anyway).
# In one process, a proof through a login node (fleetVia) hung at the same step in two CI-like runs
# after the files before it, and passed every time on its own: each file gets a fresh process, as in
# development. Every file prints its own "N passed, N failed" line (.ci/run adds them up). Exits
# non-zero if any file failed. Mocha's options for an e2e file live in test/e2e/.mocharc.json (the debug
# launch "E2E test" uses it too, for the file in the editor).
set -u
status=0
for f in test/e2e/*.test.ts; do
  npx mocha --config test/e2e/.mocharc.json "$f" || status=1
done
exit $status
