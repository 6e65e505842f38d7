#!/bin/sh
# Builds palisade from this checkout, installs it with cargo (~/.cargo/bin/palisade, a path that
# survives `cargo clean`; statically linked on Linux, with musl when it can be, see
# scripts/build.sh), hooks it into Claude Code and runs the doctor.
#
#   scripts/install.sh              install for every project (~/.claude/settings.json)
#   scripts/install.sh --project    install into this directory's .claude/settings.json
#   scripts/install.sh --dry-run    show what init would change, write nothing
#
# Arguments are passed to `palisade init`.
set -eu
cd "$(dirname "$0")/.."
scripts/build.sh install
bin="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin/palisade"
"$bin" init "$@"
case " $* " in
    *" --dry-run "* | *" --uninstall "*) exit 0 ;;
esac
# The doctor's verdict is the script's: a FAIL means the firewall is not really on.
"$bin" doctor
