#!/bin/bash
# make demo: turn fixtures/sample-tree into a git tree with a little
# history, write its conversion as a patch series, and show the result.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tc="$top/build/timerconv"
work=$(mktemp -d /tmp/timerconv-demo.XXXXXX)
tree="$work/linux"
out="$work/series"

cp -r "$top/fixtures/sample-tree" "$tree"
cd "$tree"
g() { git -c user.name="Sample Maintainer" -c user.email=sample@example.org "$@"; }
g init -q
g add -A
g commit -q -m "Import the sample tree"
echo "/* link check every 2s */" >> drivers/net/ethernet/acme/acme.h
g commit -q -am "acme: Document the link check interval"
echo "/* stop the tone on suspend */" >> drivers/input/misc/beeper.c
g commit -q -am "Input: beeper - Stop the tone on suspend"

echo "== timerconv check (before)"
"$tc" check -C "$tree" || true
echo
echo "== timerconv series -C $tree --out $out"
"$tc" series -C "$tree" --out "$out"
echo
echo "== $out/0000-cover-letter.patch"
cat "$out/0000-cover-letter.patch"
echo
first=$(ls "$out"/0001-*.patch)
echo "== $first"
cat "$first"
echo
echo "The tree in $tree is unchanged; the series is in $out."
