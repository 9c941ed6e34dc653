#!/usr/bin/env bash
# Runs the MCP conformance suites against our HTTP fixture server
# (test/fixtures/own-server-http.ts, built with src/server):
#   @modelcontextprotocol/conformance 0.1.16 (node_modules/conformance-2025):
#     server-initialize tools-list resources-subscribe resources-unsubscribe dns-rebinding-protection
#   @modelcontextprotocol/conformance 0.2.0-alpha.12 (node_modules/conformance-2026):
#     server-stateless
# Every scenario must pass; the script exits non-zero otherwise.
# On Node 20 the suites need fs.globSync, supplied by test/fixtures/conformance-node20.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."

log_dir="$(mktemp -d)"
node --import tsx test/fixtures/own-server-http.ts >"$log_dir/port" 2>"$log_dir/stderr" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$log_dir"' EXIT

for _ in $(seq 1 100); do
  [ -s "$log_dir/port" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$log_dir/stderr" >&2; echo "fixture server exited" >&2; exit 1; }
  sleep 0.1
done
port="$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$log_dir/port")"
[ -n "$port" ] || { echo "fixture server did not report its port" >&2; exit 1; }
url="http://127.0.0.1:${port}/mcp"

failed=0
run() {
  local suite="$1" scenario="$2"
  echo "== ${suite} ${scenario}"
  if ! node --import ./test/fixtures/conformance-node20.mjs "node_modules/${suite}/dist/index.js" server --url "$url" --scenario "$scenario"; then
    echo "FAILED: ${suite} ${scenario}" >&2
    failed=1
  fi
}

for scenario in server-initialize tools-list resources-subscribe resources-unsubscribe dns-rebinding-protection; do
  run conformance-2025 "$scenario"
done
run conformance-2026 server-stateless

exit "$failed"
