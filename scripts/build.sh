#!/bin/sh
# Builds palisade's release binary the way it is installed, and prints the binary's path.
#
#   scripts/build.sh               build; print the path of the binary
#   scripts/build.sh install [ARG…] cargo install it (~/.cargo/bin/palisade); ARGs go to cargo
#   scripts/build.sh symbols       the same build, symbols kept (scripts/hot_functions.py)
#
# On Linux with glibc the binary links glibc statically (its libc.a: in libc6-dev on Debian and
# Ubuntu, glibc-static on Fedora): each hook process then maps no shared library and runs no
# dynamic loader: 0.33–0.5 ms less a call (docs/PERFORMANCE.md, "Static linking").
# `--target` is explicit because without it cargo gives `+crt-static` to proc-macro crates
# too, which cannot be built that way. If the static build fails (no libc.a), or with
# PALISADE_DYNAMIC=1, the ordinary dynamically linked build, saying so.
set -eu
cd "$(dirname "$0")/.."
host=$(rustc -vV | sed -n 's/^host: //p')
static=
case "$host" in
  *-linux-gnu) [ -n "${PALISADE_DYNAMIC:-}" ] || static=1 ;;
esac
# The code a hook call runs, laid out together (scripts/link-order.txt, written by
# scripts/hot_functions.py): a call then maps a few 64 KB windows of text, not a hundred
# scattered over 10 MB (docs/PERFORMANCE.md, "Hot code together"). Only for a linker that
# takes the order (lld, Rust's default on x86_64 Linux), tried on an empty program first; the
# order is a layout, so a build without it gives the same answers, a little slower.
link_order() {
  order="$PWD/scripts/link-order.txt"
  [ -f "$order" ] || return 0
  case "$order" in
    *"'"*)
      echo "palisade: the checkout's path holds a quote; building without scripts/link-order.txt" >&2
      return 0
      ;;
  esac
  probe=$(mktemp -d) || return 0
  if echo 'fn main() {}' | rustc --target "$host" -C "link-arg=-Wl,--symbol-ordering-file=$order" \
    -C link-arg=-Wl,--no-warn-symbol-ordering -o "$probe/probe" - >/dev/null 2>&1; then
    printf "%s" ",'-C','link-arg=-Wl,--symbol-ordering-file=$order','-C','link-arg=-Wl,--no-warn-symbol-ordering'"
  else
    echo "palisade: the linker does not take a symbol order; building without scripts/link-order.txt" >&2
  fi
  rm -rf "$probe"
}
static_flags="'-C','target-feature=+crt-static','-C','relocation-model=static'"
if [ "${1:-}" = symbols ]; then
  # The installed build with its symbol table, for scripts/hot_functions.py, in target/symbols.
  # The profile stays the release one, since its settings are part of every symbol's name
  # (an unstripped profile's names would not be the installed build's); `-C strip=none`,
  # given after the profile's `-C strip`, keeps the symbols.
  if [ -z "$static" ]; then
    echo "palisade: the link order is for the statically linked build (Linux with glibc)" >&2
    exit 1
  fi
  CARGO_TARGET_DIR="$PWD/target/symbols" cargo build --release --locked --quiet --target "$host" \
    --config "target.$host.rustflags=[$static_flags,'-C','strip=none']" >&2
  echo "$PWD/target/symbols/$host/release/palisade"
  exit 0
fi
flags=
[ -z "$static" ] || flags="target.$host.rustflags=[$static_flags$(link_order)]"
fallback() {
  echo "palisade: the statically linked build failed (is glibc's libc.a installed?); building the dynamically linked one" >&2
}
if [ "${1:-}" = install ]; then
  shift
  if [ -n "$static" ]; then
    cargo install --locked --path . --target "$host" --config "$flags" "$@" && exit 0
    fallback
  fi
  exec cargo install --locked --path . "$@"
fi
if [ -n "$static" ]; then
  if cargo build --release --locked --quiet --target "$host" --config "$flags" >&2; then
    echo "$PWD/target/$host/release/palisade"
    exit 0
  fi
  fallback
fi
cargo build --release --locked --quiet >&2
echo "$PWD/target/release/palisade"
