#!/bin/sh
# Builds palisade's release binary the way it is installed, and prints the binary's path.
#
#   scripts/build.sh               build; print the path of the binary
#   scripts/build.sh install [ARG…] cargo install it (~/.cargo/bin/palisade); ARGs go to cargo
#   scripts/build.sh symbols       the same build, symbols kept (scripts/hot_functions.py)
#
# On Linux with glibc the binary is linked statically, each hook process then maps no shared
# library and runs no dynamic loader (docs/PERFORMANCE.md, "Static linking"), and with musl
# when it can be: glibc's start-up sizes the CPU's caches with `cpuid`, which traps to the
# hypervisor on a VM, and costs about half a millisecond a call there, as much as all the rest
# of a Bash call (docs/PERFORMANCE.md, "A musl build"). The musl build needs Rust's musl
# target (`rustup target add x86_64-unknown-linux-musl`) and `musl-gcc` for SQLite's C
# (`musl-tools` on Debian and Ubuntu, `musl-gcc` on Fedora). Without them, or with
# PALISADE_GLIBC=1, the build links glibc statically (its libc.a: in libc6-dev on Debian and
# Ubuntu, glibc-static on Fedora); if that fails, or with PALISADE_DYNAMIC=1, the ordinary
# dynamically linked build. Each step down is said on stderr; the three answer alike.
# `--target` is explicit because without it cargo gives `+crt-static` to proc-macro crates
# too, which cannot be built that way.
set -eu
cd "$(dirname "$0")/.."
host=$(rustc -vV | sed -n 's/^host: //p')
sysroot=$(rustc --print sysroot)
say() { echo "palisade: $*" >&2; }

# Whether this machine can build for `$1`, a musl target: Rust's standard library for it and
# a musl C compiler. (Whether its linker takes the order is `link_order`'s probe.)
musl_ready() {
  [ -d "$sysroot/lib/rustlib/$1/lib" ] || {
    say "no Rust standard library for $1 (rustup target add $1); building with glibc"
    return 1
  }
  command -v musl-gcc >/dev/null 2>&1 || {
    say "no musl-gcc (Debian and Ubuntu: musl-tools); building with glibc"
    return 1
  }
}

# The code a hook call runs, laid out together (scripts/link-order-TARGET.txt, written by
# scripts/hot_functions.py): a call then maps a few 64 KB windows of text, not a hundred
# scattered over 10 MB (docs/PERFORMANCE.md, "Hot code together"). Only for a linker that
# takes the order (lld), tried on an empty program first; the order is a layout, so a build
# without it gives the same answers, a little slower. Prints the rustflags to add, each with a
# leading comma. For musl the linker is Rust's own lld (`gcc-ld`), since the C compiler's
# default linker (GNU ld) takes no order.
link_order() {
  target=$1
  order="$PWD/scripts/link-order-$target.txt"
  [ -f "$order" ] || return 0
  case "$order" in
    *"'"*)
      say "the checkout's path holds a quote; building without $order"
      return 0
      ;;
  esac
  set -- -C "link-arg=-Wl,--symbol-ordering-file=$order" -C link-arg=-Wl,--no-warn-symbol-ordering
  lld=
  case "$target" in
    *-musl)
      gccld="$sysroot/lib/rustlib/$host/bin/gcc-ld"
      set -- -C link-arg=-fuse-ld=lld -C "link-arg=-B$gccld" "$@"
      lld=",'-C','link-arg=-fuse-ld=lld','-C','link-arg=-B$gccld'"
      ;;
  esac
  probe=$(mktemp -d) || return 0
  if echo 'fn main() {}' | rustc --target "$target" "$@" -o "$probe/probe" - >/dev/null 2>&1; then
    printf "%s" "$lld,'-C','link-arg=-Wl,--symbol-ordering-file=$order','-C','link-arg=-Wl,--no-warn-symbol-ordering'"
  else
    say "the linker does not take a symbol order; building without $order"
  fi
  rm -rf "$probe"
}

static_flags="'-C','target-feature=+crt-static','-C','relocation-model=static'"
# The builds to try, best first: "musl", "glibc" (static), "dynamic".
kinds=dynamic
musl=
case "$host" in
  *-linux-gnu)
    if [ -z "${PALISADE_DYNAMIC:-}" ]; then
      kinds="glibc dynamic"
      musl=${host%-gnu}-musl
      if [ -z "${PALISADE_GLIBC:-}" ] && musl_ready "$musl"; then
        kinds="musl glibc dynamic"
        # SQLite's and ring's C, compiled against musl's headers (the cc crate reads this).
        cc_var="CC_$(echo "$musl" | tr - _)"
        eval "[ -n \"\${$cc_var:-}\" ] || export $cc_var=musl-gcc"
      fi
    fi
    ;;
esac
target_of() {
  case "$1" in
    musl) echo "$musl" ;;
    glibc) echo "$host" ;;
  esac
}
flags_of() {
  case "$1" in
    musl | glibc) echo "target.$(target_of "$1").rustflags=[$static_flags$(link_order "$(target_of "$1")")]" ;;
  esac
}
step_down() {
  case "$1" in
    musl) say "the musl build failed; building with glibc, statically linked" ;;
    glibc) say "the statically linked build failed (is glibc's libc.a installed?); building the dynamically linked one" ;;
  esac
}

if [ "${1:-}" = symbols ]; then
  # The installed build with its symbol table, for scripts/hot_functions.py, in target/symbols.
  # The profile stays the release one, since its settings are part of every symbol's name
  # (an unstripped profile's names would not be the installed build's); `-C strip=none`,
  # given after the profile's `-C strip`, keeps the symbols. Linker arguments are not part of
  # the names, so the order is left out.
  kind=${kinds%% *}
  if [ "$kind" = dynamic ]; then
    say "the link order is for the statically linked builds (Linux)"
    exit 1
  fi
  target=$(target_of "$kind")
  CARGO_TARGET_DIR="$PWD/target/symbols" cargo build --release --locked --quiet --target "$target" \
    --config "target.$target.rustflags=[$static_flags,'-C','strip=none']" >&2
  echo "$PWD/target/symbols/$target/release/palisade"
  exit 0
fi

if [ "${1:-}" = install ]; then
  shift
  for kind in $kinds; do
    if [ "$kind" = dynamic ]; then
      exec cargo install --locked --path . "$@"
    fi
    cargo install --locked --path . --target "$(target_of "$kind")" --config "$(flags_of "$kind")" "$@" && exit 0
    step_down "$kind"
  done
fi
for kind in $kinds; do
  if [ "$kind" = dynamic ]; then
    cargo build --release --locked --quiet >&2
    echo "$PWD/target/release/palisade"
    exit 0
  fi
  target=$(target_of "$kind")
  if cargo build --release --locked --quiet --target "$target" --config "$(flags_of "$kind")" >&2; then
    echo "$PWD/target/$target/release/palisade"
    exit 0
  fi
  step_down "$kind"
done
