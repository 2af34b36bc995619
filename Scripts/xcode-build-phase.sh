#!/usr/bin/env bash
# An Xcode "Run Script" build phase that ships the catalogue snapshot inside the app: it validates
# the snapshot (building it first when asked), fails the build when it is broken or older than the
# freshness gate, and copies it into the product's resources as CasinoCatalog/.
#
# In the app target: a Run Script phase with
#     "${SRCROOT}/CasinoCache/Scripts/xcode-build-phase.sh"
# (the path to this checkout), input file list   Scripts/xcode-build-phase-inputs.xcfilelist,
# output file list Scripts/xcode-build-phase-outputs.xcfilelist (both beside this script; Xcode then
# skips the phase when the snapshot did not change), and "Based on dependency analysis" on.
# Turn off User Script Sandboxing (ENABLE_USER_SCRIPT_SANDBOXING = NO) for the target, or list every
# snapshot file as an input: the phase reads the whole snapshot directory.
#
# Settings (build settings or the phase's environment; all optional):
#   CASINO_CATALOG_SNAPSHOT   the snapshot directory       (default: ${SRCROOT}/out)
#   CASINO_CATALOG_MAX_AGE    fail a snapshot older than this: <n>d, <n>h, <n>m, <n>s (default: none)
#   CASINO_CATALOG_STALE      "error" (default) or "warning": what an old snapshot is in this configuration
#   CASINO_CATALOG_BUILD      1: run `make snapshot` in CASINO_CATALOG_ROOT first (it rebuilds only
#                             when its inputs changed)              (default: 0)
#   CASINO_CATALOG_ROOT       this checkout                 (default: the directory above this script)
#   CASINO_CATALOG_CLI        the `catalog` executable      (default: catalog on PATH, else the
#                             checkout's release build, which `make snapshot` builds)
#
# Problems are printed as `error:` and `warning:` lines, which Xcode shows in its issue navigator.
# Exit status: 0 copied; 1 anything else (the message says what and how to fix it).
set -euo pipefail

fail() {
    echo "error: CasinoCatalog: $*"
    exit 1
}

: "${TARGET_BUILD_DIR:?error: CasinoCatalog: TARGET_BUILD_DIR is not set: run this script as an Xcode build phase (see its header)}"
: "${UNLOCALIZED_RESOURCES_FOLDER_PATH:?error: CasinoCatalog: UNLOCALIZED_RESOURCES_FOLDER_PATH is not set: run this script as an Xcode build phase}"

root="${CASINO_CATALOG_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
snapshot="${CASINO_CATALOG_SNAPSHOT:-${SRCROOT:-$root}/out}"
stale="${CASINO_CATALOG_STALE:-error}"
case "$stale" in
    error | warning) ;;
    *) fail "CASINO_CATALOG_STALE must be error or warning, got '$stale'" ;;
esac

if [ "${CASINO_CATALOG_BUILD:-0}" = "1" ]; then
    command -v make >/dev/null || fail "make is not installed; install the Xcode command line tools (xcode-select --install)"
    echo "note: CasinoCatalog: make snapshot in $root"
    make -C "$root" snapshot OUT="$snapshot" || fail "make snapshot failed (its output is above); fix it or set CASINO_CATALOG_BUILD=0 to ship the last snapshot"
fi

cli="${CASINO_CATALOG_CLI:-}"
if [ -z "$cli" ]; then
    if command -v catalog >/dev/null; then
        cli="$(command -v catalog)"
    else
        cli="$root/Tools/.build/release/catalog"
    fi
fi
[ -x "$cli" ] || fail "no catalog executable at $cli: run 'make snapshot' in $root (it builds one), or set CASINO_CATALOG_CLI"

[ -d "$snapshot" ] || fail "no snapshot directory at $snapshot: run 'make snapshot' in $root (or set CASINO_CATALOG_SNAPSHOT, or CASINO_CATALOG_BUILD=1)"

arguments=(validate "$snapshot" --quiet)
if [ -n "${CASINO_CATALOG_MAX_AGE:-}" ]; then arguments+=(--max-age "$CASINO_CATALOG_MAX_AGE"); fi
status=0
output="$("$cli" "${arguments[@]}" 2>&1)" || status=$?
case "$status" in
    0) ;;
    2)
        # Valid, but older than the gate: the catalog's own line says how old and how to rebuild.
        echo "$output" | sed "s/^error: /$stale: CasinoCatalog: /"
        [ "$stale" = "warning" ] || exit 1
        ;;
    *)
        echo "$output" | sed 's/^\([a-z]*\): /\1: CasinoCatalog: /'
        fail "the snapshot at $snapshot does not validate (exit $status): rebuild it with 'make snapshot' in $root"
        ;;
esac

destination="$TARGET_BUILD_DIR/$UNLOCALIZED_RESOURCES_FOLDER_PATH/CasinoCatalog"
staging="$destination.incoming-$$"
rm -rf "$staging"
mkdir -p "$(dirname "$destination")"
cp -R "$snapshot" "$staging"
# The folder is this phase's own output: replaced whole, so no file of an older snapshot lingers.
rm -rf "$destination"
mv "$staging" "$destination"
echo "note: CasinoCatalog: copied $snapshot to $destination"
