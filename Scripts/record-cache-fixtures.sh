#!/usr/bin/env bash
# Records the bundles the cache's tests read (Tests/CasinoCacheTests/Fixtures) into OUTPUT with the
# `catalog` binary CATALOG: synthetic recordings from fixed seeds, each written as `catalog snapshot`
# writes out/, stamped with a fixed SOURCE_DATE_EPOCH. The same binary writes the same bytes, so
# `make test` records them again and compares them with the committed ones; `make fixtures` commits
# new ones. OUTPUT is replaced only when every fixture was written.
#
# Usage: Scripts/record-cache-fixtures.sh CATALOG OUTPUT
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 CATALOG OUTPUT" >&2; exit 2; }
catalog=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
output=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cache-fixtures.XXXXXX")
trap 'rm -rf "$work"' EXIT

# 2026-11-20T10:00:00Z, the recordings' fetch time: BundleFixture.recordedAt in the tests.
epoch=1795168800

# The manifests name their recording ("recorded provider directory lobby"), so every path below is
# relative to the work directory, the same on every machine.
cd "$work"
sample() { "$catalog" sample --quiet "$@"; }
snapshot() { "$catalog" snapshot --quiet --source-date-epoch "$epoch" "$@"; }

# lobby: 60 games in 3 categories (seed 11), en-iPhone and fr-iPhone, the default configuration.
# lobby-images: the same, with the first 4 thumbnails of each category bundled (8×6 PNGs).
sample --games 60 --categories 3 --seed 11 --thumbnail-size 8x6 --output lobby
snapshot --source lobby --out fixtures/lobby
printf '%s\n' '{"bundleImages": {"allowedHosts": ["static.example-cdn.com"], "gamesPerCategory": 4}}' >images.json
snapshot --source lobby --config images.json --out fixtures/lobby-images

# five-editions: one small category in en, fr, pt and zh-Hant on iPhone and en on Android.
sample --games 10 --categories 1 --editions en-iPhone,fr-iPhone,pt-iPhone,zh-Hant-iPhone,en-Android \
  --output five-editions
printf '%s\n' '{"defaultEdition": "en-iPhone"}' >five-editions.json
snapshot --source five-editions --config five-editions.json --out fixtures/five-editions

# page-size-7: 30 games in 2 categories (seed 3), cut into pages of 7.
sample --games 30 --categories 2 --seed 3 --output page-size-7
printf '%s\n' '{"pageSize": 7}' >page-size-7.json
snapshot --source page-size-7 --config page-size-7.json --out fixtures/page-size-7

cd - >/dev/null
rm -rf "$output.tmp"
mkdir -p "$(dirname "$output")"
cp -R "$work/fixtures" "$output.tmp"
rm -rf "$output"
mv "$output.tmp" "$output"
