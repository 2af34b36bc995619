#!/bin/sh
# Xcode Cloud runs ci_scripts/ci_post_clone.sh after cloning the app's repository: copy this file
# there. It installs what `make snapshot` needs on the build Mac and builds the catalogue snapshot,
# from the live provider when the workflow sets CASINO_CATALOG_SOURCE (its URL); the app target's
# build phase (Scripts/xcode-build-phase.sh) then validates the snapshot and copies it in.
#
# Workflow environment (all optional):
#   CASINO_CATALOG_ROOT     this package's checkout   (default: $CI_PRIMARY_REPOSITORY_PATH/CasinoCache)
#   CASINO_CATALOG_SOURCE   the provider's base URL   (default: the checkout's data/provider)
#   CASINO_CATALOG_MAX_AGE  fail a snapshot older than this (7d, 12h)  (default: none)
set -eu

root="${CASINO_CATALOG_ROOT:-${CI_PRIMARY_REPOSITORY_PATH:-.}/CasinoCache}"
[ -f "$root/Makefile" ] || { echo "error: no CasinoCache checkout at $root: set CASINO_CATALOG_ROOT"; exit 1; }

if [ "$(uname)" = Darwin ]; then
    command -v brew >/dev/null || { echo "error: Homebrew is missing; Xcode Cloud images have it"; exit 1; }
    brew list pkg-config >/dev/null 2>&1 || brew install pkg-config
    brew list libxml2 >/dev/null 2>&1 || brew install libxml2
    PKG_CONFIG_PATH="$(brew --prefix libxml2)/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export PKG_CONFIG_PATH
fi

make -C "$root" deps
if [ -n "${CASINO_CATALOG_SOURCE:-}" ]; then
    make -C "$root" snapshot SOURCE="$CASINO_CATALOG_SOURCE"
else
    make -C "$root" snapshot
fi
make -C "$root" validate ${CASINO_CATALOG_MAX_AGE:+MAX_AGE="$CASINO_CATALOG_MAX_AGE"}
