#!/usr/bin/env bash
# Adapter start cost as a ratio to a bare Node stdio echo (docs/real-engines.md, "Speed").
# CPU seconds of the children (bash `times`), not wall time, so a loaded machine
# does not skew the ratio.
#   bench/startup.sh PLUGIN_ENTRY [PROFILE=OPENCLAW_PACKAGE_DIR] [N]
# NODE selects the interpreter (default: node); ADAPTER_ARGS adds adapter
# options (e.g. ADAPTER_ARGS='--hang-report-ms 0' to leave the watchdog out).
set -euo pipefail
entry=${1:?usage: startup.sh PLUGIN_ENTRY [PROFILE=OPENCLAW_PACKAGE_DIR] [N]}
sdk=${2:-}
n=${3:-10}
node=${NODE:-node}
adapter="$(cd "$(dirname "$0")/.." && pwd)/bin/clawspec-node-adapter.js"
profile=${sdk%%=*}
profile=${profile:-openclaw-2026.9.6}
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"profile":"'"$profile"'","host":{"name":"bench","version":"0"},"offers":{"callbacks":[],"capabilities":[]}}}'
bye='{"jsonrpc":"2.0","id":2,"method":"shutdown"}'

# Children's user+sys CPU so far, in ms. `times` must run in this shell (a
# command substitution's subshell has no children), so `snap` writes it to a
# file and `ms` reads it.
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
snap() { times > "$tmp"; }
ms() { tail -1 "$tmp" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] } printf "%d\n", t * 1000 }'; }

snap; start=$(ms)
for _ in $(seq "$n"); do printf '%s\n' "$init" | "$node" -e 'process.stdin.pipe(process.stdout)' > /dev/null; done
snap; echo_ms=$(( $(ms) - start ))
start=$(ms)
for _ in $(seq "$n"); do
  printf '%s\n%s\n' "$init" "$bye" | "$node" "$adapter" "$entry" ${sdk:+--sdk "$sdk"} ${ADAPTER_ARGS:-} > /dev/null 2>&1
done
snap; adapter_ms=$(( $(ms) - start ))
echo "bare echo: $(( echo_ms / n )) ms CPU per start"
echo "adapter + $(basename "$(dirname "$entry")")/$(basename "$entry")${sdk:+ (SDK $sdk)}: $(( adapter_ms / n )) ms CPU per start"
awk -v a="$adapter_ms" -v e="$echo_ms" 'BEGIN { printf "ratio: %.1f\n", a / (e > 0 ? e : 1) }'
