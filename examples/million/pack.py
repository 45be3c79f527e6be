"""Pack one Debian documentation package release's HTML pages into a gzipped WARC.

Reads the package's file system as a tar stream on stdin (`dpkg-deb --fsys-tarfile DEB`),
so the loose HTML never exists on disk, and writes every regular `*.html`/`*.htm` file as a
WARC `response` record (HTTP 200, text/html) with the URL

    http://<package>/<version>/<path inside the package>

(the host is the package: the same "site" a folder ingest of debian-docs.sh's layout gives),
plus a gold line `<url>\t<package>:<path inside the package>`: the same page in two
releases of one package is one cluster, labelled by provenance, never by a score.

Usage: pack.py PACKAGE VERSION OUT.warc.gz OUT-gold.tsv < package.tar
Prints the number of pages and HTML bytes packed. Needs warcio.
"""

import io
import sys
import tarfile
import zlib

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter


def main() -> None:
    package, version, warc_path, gold_path = sys.argv[1:5]
    pages = 0
    html_bytes = 0
    with open(warc_path, "wb") as out, open(gold_path, "w", encoding="utf-8") as gold:
        # One gzip member per record, as WARC.gz wants, at level 1: warcio's own gzip
        # writer uses level 9, which made packing three times slower for a few % of size.
        buffer = io.BytesIO()
        writer = WARCWriter(buffer, gzip=False)
        with tarfile.open(fileobj=sys.stdin.buffer, mode="r|") as tar:
            for member in tar:
                name = member.name.removeprefix("./")
                if not member.isfile() or not name.lower().endswith((".html", ".htm")):
                    continue
                source = tar.extractfile(member)
                if source is None:
                    continue
                body = source.read()
                url = f"http://{package}/{version}/{name}"
                headers = StatusAndHeaders(
                    "200 OK",
                    [("Content-Type", "text/html"), ("Content-Length", str(len(body)))],
                    protocol="HTTP/1.1",
                )
                record = writer.create_warc_record(
                    url, "response", payload=io.BytesIO(body), http_headers=headers
                )
                buffer.seek(0)
                buffer.truncate()
                writer.write_record(record)
                member_gzip = zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS + 16)
                out.write(member_gzip.compress(buffer.getvalue()) + member_gzip.flush())
                gold.write(f"{url}\t{package}:{name}\n")
                pages += 1
                html_bytes += len(body)
    print(f"{pages}\t{html_bytes}")


if __name__ == "__main__":
    main()
