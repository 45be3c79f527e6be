#!/usr/bin/env bash
# Build the million-page corpus of issue 16 item 4 as gzipped WARCs, one per Debian
# documentation package release, without the loose HTML ever existing on disk.
#
# Every release (bullseye, bookworm, trixie) of each package below is downloaded with apt
# (debs cached in ~/.cache/debian-docs/debs, as /work/shared/corpus/debian-docs.sh does),
# streamed out of the .deb (`dpkg-deb --fsys-tarfile`) and packed by pack.py into
#     OUT/warc/<package>_<version>.warc.gz   (URL http://<package>/<version>/<path>)
#     OUT/gold/<package>_<version>.tsv       (<url>\t<package>:<path>: provenance labels)
#     OUT/pages.tsv                          (<package>\t<version>\t<pages>\t<html bytes>)
# Packages are taken in the order listed until OUT/pages.tsv counts TARGET pages (default
# 1,000,000; the news pages are added at ingest). Two releases are packed at once.
#
# Usage: build.sh OUT [TARGET]     (DROP_DEBS=1: delete each deb once packed)
# Needs: apt-get, dpkg-deb, a python with warcio (~/.cache/spotcheck/peers-venv).
set -euo pipefail

out=${1:?usage: build.sh OUT [TARGET]}
target=${2:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-$HOME/.cache/spotcheck/peers-venv/bin/python}
cache=${DEBDOCS_CACHE:-$HOME/.cache/debian-docs}
state=$cache/apt
mkdir -p "$state"/{lists/partial,cache/archives/partial} "$cache/debs" "$out/warc" "$out/gold"
touch "$out/pages.tsv"

# Dense first: packages with many HTML pages per downloaded byte. Measured page counts of
# the releases packed on 2026-11-24 are in BENCHMARKS.md ("Issue 16 (session 7)").
packages=(
  rust-doc openjdk-11-doc openjdk-17-doc openjdk-21-doc openjdk-25-doc
  libstdc++-10-doc libstdc++-12-doc libstdc++-14-doc
  libboost1.74-doc libboost1.81-doc libboost1.83-doc libboost1.88-doc
  scala-doc ghc-doc petsc3.14-doc petsc3.18-doc petsc3.22-doc wx3.0-doc wx3.2-doc
  libfastutil-java-doc casacore-doc singular-dev-doc libgecode-doc libpcl-doc
  python-pandas-doc racket-doc php-doc linux-doc-5.10 linux-doc-6.1 linux-doc-6.12
  qtbase5-doc-html qt6-base-doc-html postgresql-doc-13 postgresql-doc-15 postgresql-doc-17
  libhbci4j-core-java-doc libmongoc-doc libcamitk5-doc lilypond-doc-html openscenegraph-doc
  libghc-gi-gtk-doc libghc-ghc-lib-parser-doc libghc-agda-doc libghc-openglraw-doc
  lazarus-doc-2.0 lazarus-doc-2.2 lazarus-doc-4.0 dcmtk-doc cppreference-doc-en-html
  libgtkmm-2.4-doc libgtkmm-3.0-doc libgtkmm-4.0-doc libstdc++-9-doc libstdc++-11-doc
  libstdc++-13-doc libcoin-doc libjuce-doc libball1.5-doc elastix-doc lorene-doc
  groovy-doc crystal-doc libapache-poi-java-doc ogre-1.12-doc twisted-doc libopenvdb-doc
  libbiojava-java-doc python-numpy-doc clhep-doc libcommons-math3-java-doc libgtk-4-doc
  halide19-api-doc rdkit-doc fop-doc libbyte-buddy-java-doc libbcprov-java-doc
  libcrypto++-doc libxalan-c-doc fp-docs-3.2.2 libglib2.0-doc weka-doc libjmol-java-doc
  libopenjfx-java-doc pki-javadoc libjfreechart-java-doc libsbml5-doc
  vtk7-doc sumo-doc xrootd-doc gnuradio-doc rust-web-doc vtk9-doc libdeal.ii-doc
  libreoffice-dev-doc
)

# The mirror this machine already uses, with three suites (as debian-docs.sh).
uri=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -1 | awk '{print $2}')
[ -n "$uri" ] || uri=$(grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | grep -v security | head -1 | awk '{print $2}')
[ -n "$uri" ] || { echo "cannot find the Debian mirror in this machine's apt sources" >&2; exit 2; }
key=/usr/share/keyrings/debian-archive-keyring.gpg
: > "$state/sources.list"
for suite in bullseye bookworm trixie; do
  echo "deb [signed-by=$key] $uri $suite main" >> "$state/sources.list"
done
apt_opts=(-o Dir::Etc::SourceList="$state/sources.list" -o Dir::Etc::SourceParts=/nonexistent
          -o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache"
          -o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts=/nonexistent)
if [ ! -s "$state/updated" ] || [ -n "$(find "$state/updated" -mmin +1440)" ]; then
  apt-get "${apt_opts[@]}" update >&2 && date > "$state/updated"
fi

pages_so_far() { awk -F'\t' '{n += $3} END {print n + 0}' "$out/pages.tsv"; }

# One package release: download, stream, pack; append its count to pages.tsv.
pack_release() {
  local p=$1 v=$2 vdir name deb counts
  vdir=$(echo "$v" | tr ':~' '_-')
  name=${p}_$vdir
  [ -s "$out/warc/$name.warc.gz" ] && return 0
  [ "$(pages_so_far)" -ge "$target" ] && return 0
  # apt names the file <package>_<version, epoch ':' as %3a>_<arch>.deb.
  deb=$(ls "$cache/debs/${p}_"*"${v#*:}_"*.deb 2>/dev/null | head -1 || true)
  if [ -z "$deb" ]; then
    (cd "$cache/debs" && apt-get "${apt_opts[@]}" download "$p=$v" >/dev/null 2>&1)
    deb=$(ls "$cache/debs/${p}_"*"${v#*:}_"*.deb | head -1)
  fi
  counts=$(dpkg-deb --fsys-tarfile "$deb" \
    | "$python" "$here/pack.py" "$p" "$vdir" "$out/warc/$name.warc.gz.tmp" "$out/gold/$name.tsv")
  mv "$out/warc/$name.warc.gz.tmp" "$out/warc/$name.warc.gz"
  printf '%s\t%s\t%s\n' "$p" "$v" "$counts" >> "$out/pages.tsv"
  echo "$(date -u +%T) $p $v: $counts (pages, html bytes); total $(pages_so_far)" >&2
  if [ "${DROP_DEBS:-0}" = 1 ]; then rm -f "$deb"; fi
}
export -f pack_release pages_so_far
export out target here python cache
export apt_opts_str="${apt_opts[*]}"

for p in "${packages[@]}"; do
  apt-cache "${apt_opts[@]}" madison "$p" | awk -F'|' -v p="$p" '{gsub(/ /,"",$2); print p, $2}' | sort -u
done | xargs -P 2 -L 1 bash -c 'apt_opts=($apt_opts_str); pack_release "$0" "$1"'
echo "pages: $(pages_so_far) in $(wc -l < "$out/pages.tsv") releases" >&2
