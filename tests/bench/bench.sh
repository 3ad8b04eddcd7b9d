#!/bin/bash
# make bench: see tests/bench/bench.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec /usr/bin/python3 tests/bench/bench.py "$@"
