#!/usr/bin/env bash
# The model path's connection cost: whole `palisade hook` calls that go to the risk layer,
# timed from spawn to exit, against a TLS stand-in backend behind a delayed link, calling
# directly (no broker) and through `palisade serve`, interleaved. Prints Markdown.
#
# Usage: scripts/bench-risk.sh [CALLS=40] [DELAY_MS=40]
#   PALISADE_BIN=FILE  the binary to time (default: built by scripts/build.sh, as it is
#                      installed; with NO_BUILD=1 the newest release binary, not rebuilt).
# Needs root (a network namespace with a loopback-only address), ip, openssl and python3;
# without them it says so and skips (exit 0). The delay is `tc netem` on the namespace's
# loopback (each packet DELAY_MS, so a round trip is 2 × DELAY_MS); a kernel without netem gets
# the same one-way delay from a userspace relay (scripts/bench_risk.py relay), which says so.
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=${1:-40}
DELAY=${2:-40}
skip() { echo "bench-risk: $1; skipped"; exit 0; }
for t in ip openssl python3; do command -v "$t" >/dev/null || skip "$t not found"; done
[ "$(id -u)" = 0 ] || skip "a network namespace needs root"
# The interpreter itself (not a version manager's shim): background processes are stopped by pid.
PY=$(python3 -c 'import sys; print(sys.executable)')
if [ -z "${PALISADE_BIN:-}" ]; then
  if [ -z "${NO_BUILD:-}" ]; then
    PALISADE_BIN=$(scripts/build.sh)
  else
    PALISADE_BIN=$(ls -t target/*/release/palisade target/release/palisade 2>/dev/null | head -1)
  fi
fi
NS=palisade-bench-$$
ip netns add "$NS" 2>/dev/null || skip "cannot create a network namespace"
TMP=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  ip netns del "$NS" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
# `ip netns exec` execs the command, so `$!` after it is the command's pid.
inns() { ip netns exec "$NS" "$@"; }
ADDR=10.77.0.1
ip -n "$NS" link set lo up
ip -n "$NS" addr add "$ADDR/32" dev lo

# A throwaway CA and a server certificate for the address; the hook trusts the CA through
# `risk.ca_file`.
(
  cd "$TMP"
  ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
  openssl req -x509 $ec -days 2 -subj /CN=palisade-bench-ca -keyout ca.key -out ca.pem \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
  openssl req $ec -subj "/CN=$ADDR" -keyout srv.key -out srv.csr 2>/dev/null
  printf 'subjectAltName=IP:%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$ADDR" >ext
  openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
    -extfile ext -out srv.pem 2>/dev/null
)

if tc -n "$NS" qdisc add dev lo root netem delay "${DELAY}ms" 2>/dev/null; then
  PORTS="('$ADDR', 8443)"
  LINK="tc netem delay ${DELAY} ms on the namespace's loopback (round trip $((2 * DELAY)) ms)"
  ip netns exec "$NS" "$PY" scripts/bench_risk.py standin "$ADDR" 8443 "$TMP/srv.pem" "$TMP/srv.key" &
  PIDS+=($!)
else
  PORTS="('$ADDR', 8443), ('127.0.0.1', 8444)"
  LINK="userspace relay, ${DELAY} ms each way (round trip $((2 * DELAY)) ms): this kernel has no netem qdisc"
  ip netns exec "$NS" "$PY" scripts/bench_risk.py standin 127.0.0.1 8444 "$TMP/srv.pem" "$TMP/srv.key" &
  PIDS+=($!)
  ip netns exec "$NS" "$PY" scripts/bench_risk.py relay "$ADDR" 8443 127.0.0.1 8444 "$DELAY" &
  PIDS+=($!)
fi

export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache \
  XDG_STATE_HOME=$TMP/state CLAUDE_CONFIG_DIR=$TMP/home/.claude BENCH_RISK_KEY=sk-bench-risk
unset PALISADE_CONFIG CLAUDE_PROJECT_DIR PALISADE_DATA_DIR
export PALISADE_BIN BENCH_CWD=$HOME/project
mkdir -p "$BENCH_CWD" "$XDG_CONFIG_HOME/palisade" "$TMP/direct" "$TMP/broker"
cat >"$XDG_CONFIG_HOME/palisade/policy.yaml" <<EOF
version: 1
risk:
  enabled: true
  url: https://$ADDR:8443/v1/systemone
  ca_file: $TMP/ca.pem
  api_key_env: BENCH_RISK_KEY
  timeout_ms: 3000
  cache_ttl_s: 0
EOF

PALISADE_DATA_DIR=$TMP/broker ip netns exec "$NS" "$PALISADE_BIN" serve 2>/dev/null &
PIDS+=($!)
for _ in $(seq 100); do
  [ -S "$TMP/broker/broker/broker.sock" ] && break
  sleep 0.05
done
[ -S "$TMP/broker/broker/broker.sock" ] || { echo "bench-risk: the broker did not start" >&2; exit 1; }
# The backend is up when its ports take a connection.
inns "$PY" -c "
import socket, sys, time
for _ in range(200):
    try:
        for a in [$PORTS]:
            socket.create_connection(a, timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit('bench-risk: the stand-in backend did not start')"

echo "Risk-layer hook calls ($(date -u +%Y-%m-%d), $(uname -m), $(nproc) CPUs,"\
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(basename "$PALISADE_BIN"))"
echo "Link: $LINK. TLS stand-in: Python ssl, HTTP/1.1 keep-alive. $CALLS calls per way, interleaved."
echo
echo "| way | calls | p50 ms | p95 ms | mean ms |"
echo "|---|---|---|---|---|"
inns "$PY" scripts/bench_risk.py drive "$CALLS" "$TMP/direct" "$TMP/broker"
