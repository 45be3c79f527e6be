#!/usr/bin/env bash
# The methods report in a real browser: installs Debian's chromium when missing, builds the
# demo database, writes `spotcheck report` HTML, opens it headless in Chromium twice (the DOM
# after load with a probe measuring every SVG figure, and a screenshot) and checks with
# .ci/report_check.py that each figure is laid out with its bars and labels drawn, the page
# does not overflow sideways, and the figure's region of the PNG is not blank.
# Usage: .ci/report-browser.sh [SPOTCHECK_BINARY] (default target/debug/spotcheck).
# The screenshot is kept at target/tmp/report-browser.png for a look.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug/spotcheck}
[ -x "$bin" ] || { echo "report-browser: no spotcheck binary at $bin (cargo build first)" >&2; exit 1; }

if ! command -v chromium >/dev/null 2>&1; then
  echo "== installing chromium (Debian package)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
fi

work=$(mktemp -d /tmp/spotcheck-report-browser.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$bin" demo --db "$work/demo.db" --no-review >/dev/null
"$bin" report --db "$work/demo.db" --out "$work/report.html" >/dev/null
python3 .ci/report_check.py inject "$work/report.html" "$work/probe.html"

browse() {
  # A fresh profile each time; nothing reaches the network.
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --force-device-scale-factor=1 \
    --user-data-dir="$work/profile-$1" "${@:2}" "file://$work/probe.html" 2>"$work/chromium-$1.log"
}
browse dom --window-size=1200,900 --dump-dom >"$work/dom.html" || {
  cat "$work/chromium-dom.log" >&2; exit 1; }
height=$(python3 -c 'import html,json,re,sys; print(json.loads(html.unescape(re.search(r"data-probe=\"([^\"]*)\"", open(sys.argv[1]).read()).group(1)))["scrollHeight"])' "$work/dom.html" 2>/dev/null || echo 3000)
browse shot --window-size=1200,"$height" --screenshot="$work/report.png" >/dev/null || {
  cat "$work/chromium-shot.log" >&2; exit 1; }
mkdir -p target/tmp
cp "$work/report.png" target/tmp/report-browser.png
python3 .ci/report_check.py check "$work/dom.html" "$work/report.png"
