#!/bin/sh
# npm test: install what the suites need, build, type-check and lint (any of these failing stops
# here: nothing after them would mean anything), then every suite — unit, SSH, real VS Code — each
# run even when one before it failed, so one run shows every failure. Exits non-zero if any failed.
set -u
sh test/setup.sh && npm run build && npm run typecheck && npm run lint || exit 1
status=0
for suite in test:unit test:ssh test:e2e; do
  npm run "$suite" || { echo "npm run $suite failed"; status=1; }
done
exit $status
