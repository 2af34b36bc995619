// The platform's zlib, included from the SDK on Apple platforms and from zlib1g-dev on Linux; the
// target links `libz` (Package.swift). Never found through pkg-config: on a Mac it may name
// Homebrew's zlib, built for macOS only, and an iOS Simulator build then fails.
#ifndef CZLIB_H
#define CZLIB_H
#include <zlib.h>
#endif
