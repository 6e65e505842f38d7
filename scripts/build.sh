#!/bin/sh
# Builds palisade's release binary the way it is installed, and prints the binary's path.
#
#   scripts/build.sh               build; print the path of the binary
#   scripts/build.sh install [ARG…] cargo install it (~/.cargo/bin/palisade); ARGs go to cargo
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
flags="target.$host.rustflags=['-C','target-feature=+crt-static','-C','relocation-model=static']"
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
