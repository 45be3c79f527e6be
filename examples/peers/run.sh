#!/usr/bin/env bash
# Issue 16: spotcheck's defaults against what users would assemble instead, back to back.
#
#   examples/peers/run.sh HTML_DIR GOLD.tsv WARC
#
# HTML side, raw HTML to pairs: resiliparse + datasketch MinHash LSH, resiliparse + rensa
# (threshold 0.8, 128 permutations, word 5-shingles; see peers.py), and `spotcheck ingest` +
# `spotcheck detect` with no options into a fresh database. WARC side: FastWARC's and warcio's
# bare iteration (every record's payload read) against `spotcheck ingest` with defaults.
# Each command is timed as a whole process (wall seconds), RUNS times (default 3), the sides in
# turn (A B C A B C ...); the table gives min / median / max and the ratio of medians
# peer / spotcheck (above 1: spotcheck is faster), and the median CPU seconds (user + sys of
# the whole side, child processes included) with their ratio: on a loaded machine wall
# seconds are the load's, and a single-threaded peer loses less wall time to it than a
# side that uses both cores. The load average is printed before and after
# each side. Pair quality: peers.py scores the Python pairs against the gold, `spotcheck eval
# --gold` scores spotcheck's runs.
#
# The peers come from PyPI into a venv at $HOME/.cache/spotcheck/peers-venv (created if missing).
# spotcheck is the release binary of this checkout (`cargo build --release` first), or $SPOTCHECK.
set -euo pipefail

if [[ $# -ne 3 ]]; then
  sed -n '2,20p' "$0" >&2
  exit 2
fi
html=$1 gold=$2 warc=$3
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
spotcheck=${SPOTCHECK:-$repo/target/release/spotcheck}
venv=$HOME/.cache/spotcheck/peers-venv
py=$venv/bin/python
peers=$here/peers.py

[[ -x $spotcheck ]] || { echo "no $spotcheck: run cargo build --release" >&2; exit 1; }
for f in "$html" "$gold" "$warc"; do [[ -e $f ]] || { echo "no such file: $f" >&2; exit 1; }; done

if [[ ! -x $py ]]; then
  python3 -m venv "$venv"
fi
# Each package on its own, so one that cannot be installed does not stop the others.
declare -A have
for pkg in resiliparse datasketch rensa fastwarc warcio; do
  if "$venv/bin/pip" show -q "$pkg" >/dev/null 2>&1 || "$venv/bin/pip" install -q "$pkg"; then
    have[$pkg]=1
  else
    echo "!! pip could not install $pkg (error above); its side is skipped" >&2
    have[$pkg]=0
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/spotcheck-peers.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PEERS_HTML=$html

echo "machine: $(nproc) cores, $(uname -srm); $("$spotcheck" --version 2>/dev/null || echo 'spotcheck ?')"
echo "peers: $("$venv/bin/pip" list 2>/dev/null | grep -iE '^(resiliparse|datasketch|rensa|fastwarc|warcio) ' | tr -s ' ' | paste -sd, -)"
echo "html: $html ($(find "$html" -type f \( -name '*.html' -o -name '*.htm' \) | wc -l) pages, $(du -sh "$html" | cut -f1)); warc: $warc ($(du -h "$warc" | cut -f1))"
echo "runs per command: $runs"

# sides: name -> command line (run with bash -c, output to a log)
names=() cmds=()
add() { names+=("$1"); cmds+=("$2"); }
if [[ ${have[resiliparse]} == 1 && ${have[datasketch]} == 1 ]]; then
  add "resiliparse+datasketch" "'$py' '$peers' dedup datasketch '$html' '$work/datasketch.tsv'"
fi
if [[ ${have[resiliparse]} == 1 && ${have[rensa]} == 1 ]]; then
  add "resiliparse+rensa" "'$py' '$peers' dedup rensa '$html' '$work/rensa.tsv'"
fi
add "spotcheck ingest+detect" "rm -f '$work/html.db'*; '$spotcheck' ingest --db '$work/html.db' '$html' --quiet && '$spotcheck' detect --db '$work/html.db'"
html_n=${#names[@]}
if [[ ${have[fastwarc]} == 1 ]]; then add "fastwarc iterate" "'$py' '$peers' warc fastwarc '$warc'"; fi
if [[ ${have[warcio]} == 1 ]]; then add "warcio iterate" "'$py' '$peers' warc warcio '$warc'"; fi
add "spotcheck ingest (warc)" "rm -f '$work/warc.db'*; '$spotcheck' ingest --db '$work/warc.db' '$warc' --quiet"

now() { date +%s.%N; }
declare -A times cpus
timeside() { # group-start group-end
  local r i t0 t1
  for ((r = 1; r <= runs; r++)); do
    for ((i = $1; i < $2; i++)); do
      echo "load before '${names[$i]}' run $r: $(uptime | sed 's/.*load average: //')"
      t0=$(now)
      /usr/bin/time -o "$work/cpu" -f "%U %S" bash -c "${cmds[$i]}" >"$work/side$i.log" 2>&1 || { echo "!! ${names[$i]} failed:" >&2; tail -5 "$work/side$i.log" >&2; }
      t1=$(now)
      times[$i]+="$(echo "$t1 - $t0" | bc) "
      cpus[$i]+="$(tail -1 "$work/cpu" | awk '{print $1 + $2}') "
      echo "load after  '${names[$i]}' run $r: $(uptime | sed 's/.*load average: //')"
    done
  done
}
stats() { tr ' ' '\n' <<<"${times[$1]}" | grep . | sort -g | awk '{a[NR]=$1} END {printf "%.2f %.2f %.2f", a[1], a[int((NR+1)/2)], a[NR]}'; }
cpu_median() { tr ' ' '\n' <<<"${cpus[$1]}" | grep . | sort -g | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]}'; }

timeside 0 "$html_n"
timeside "$html_n" "${#names[@]}"

table() { # from to reference-index
  printf '| %-26s | %6s | %6s | %6s | %s | %s | %s |\n' side min median max "ratio peer/spotcheck (medians)" "CPU s (median)" "CPU ratio"
  printf '|%s|\n' "----------------------------|--------|--------|--------|------|------|------"
  local ref cref i s m c
  ref=$(stats "$3" | cut -d' ' -f2)
  cref=$(cpu_median "$3")
  ratio() { if (($3 == $4)); then echo 1.00; else echo "scale=4; $1 / $2" | bc | xargs printf '%.2f'; fi; }
  for ((i = $1; i < $2; i++)); do
    s=$(stats "$i"); m=$(cut -d' ' -f2 <<<"$s"); c=$(cpu_median "$i")
    printf '| %-26s | %6s | %6s | %6s | %s | %s | %s |\n' "${names[$i]}" $s "$(ratio "$m" "$ref" "$i" "$3")x" "$c" "$(ratio "$c" "$cref" "$i" "$3")x"
  done
}
echo
echo "== raw HTML to pairs ($html): wall seconds over $runs runs"
table 0 "$html_n" $((html_n - 1))
echo
echo "== WARC ($warc): wall seconds over $runs runs"
table "$html_n" "${#names[@]}" $((${#names[@]} - 1))

echo
echo "== pair quality on $gold (pairwise, documents in both the gold and the input)"
for ((i = 0; i < html_n - 1; i++)); do
  lib=${names[$i]#resiliparse+}
  echo "${names[$i]}: $("$py" "$peers" score "$work/$lib.tsv" "$gold")"
done
echo "spotcheck (spotcheck eval --gold, every run of the default detect):"
"$spotcheck" eval --db "$work/html.db" --gold "$gold"
