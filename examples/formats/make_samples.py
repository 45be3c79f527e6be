#!/usr/bin/env python3
"""Writes the HTML pages of one real WARC the ways other web-archive tools write them, for
the formats tests (tests/ingest/formats.rs). Never commit the output.

    make_samples.py WARC OUTDIR

OUTDIR gets:
  expected.tsv        url<TAB>WARC-Date of every HTML page (warcio's reading: response
                      records with an HTTP Content-Type of text/html, non-empty payload)
  pages.wet.gz        WET: one `conversion` record (text/plain) per page, as Common Crawl's
  pages.wacz          WACZ in the Browsertrix/py-wacz layout: archive/data.warc.gz (the
                      WARC's bytes, stored), pages/pages.jsonl, datapackage.json (sha256)
  aut-webpages/       the AUT/ARCH web-pages derivative as Spark writes CSV: part files, no
                      header, backslash-escaped quotes, multi-line content, _SUCCESS
  pages.parquet       a page table (url, crawl_date timestamp, title, html) via pyarrow
  damaged-hash.wacz   the WACZ with a wrong sha256 for pages/pages.jsonl in datapackage.json
  damaged-entry.wacz  the WACZ with pages/pages.jsonl deflated and its bytes damaged
  broken-row.csv      a page table CSV (header url,date,title,text) with one broken row
"""
import csv
import gzip
import hashlib
import html.parser
import io
import json
import os
import re
import shutil
import sys
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq
from warcio.archiveiterator import ArchiveIterator
from warcio.warcwriter import WARCWriter
from warcio.statusandheaders import StatusAndHeaders


class Text(html.parser.HTMLParser):
    """Visible text, roughly: enough for a text-only copy of a page."""

    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        if tag in ("p", "div", "br", "li", "h1", "h2", "h3", "tr", "title"):
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def page_text(html_bytes):
    p = Text()
    try:
        p.feed(html_bytes.decode("utf-8", "replace"))
        p.close()
    except Exception:
        pass
    lines = [" ".join(l.split()) for l in "".join(p.parts).split("\n")]
    return "\n".join(l for l in lines if l)


def title_of(html_bytes):
    m = re.search(rb"<title[^>]*>(.*?)</title>", html_bytes, re.I | re.S)
    return " ".join(m.group(1).decode("utf-8", "replace").split()) if m else ""


def pages(warc):
    out = []
    with open(warc, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type != "response" or rec.http_headers is None:
                continue
            ct = (rec.http_headers.get_header("Content-Type") or "").split(";")[0].strip().lower()
            if ct != "text/html":
                continue
            body = rec.content_stream().read()
            if not body.strip():
                continue
            out.append(
                {
                    "url": rec.rec_headers.get_header("WARC-Target-URI"),
                    "date": rec.rec_headers.get_header("WARC-Date"),
                    "html": body,
                }
            )
    return out


def write_wet(ps, path):
    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=True)
        for p in ps:
            text = page_text(p["html"]) or p["url"]
            rec = w.create_warc_record(
                p["url"],
                "conversion",
                payload=io.BytesIO(text.encode("utf-8")),
                warc_content_type="text/plain",
                warc_headers_dict={"WARC-Date": p["date"]},
            )
            w.write_record(rec)


def sha256(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def write_wacz(ps, warc, path, pages_bytes=None, bad_hash=False, deflate_pages=False):
    with open(warc, "rb") as f:
        warc_bytes = f.read()
    if not warc.endswith(".gz"):
        warc_bytes = gzip.compress(warc_bytes)
    lines = [json.dumps({"format": "json-pages-1.0", "id": "pages", "title": "All Pages"})]
    for i, p in enumerate(ps):
        lines.append(json.dumps({"id": str(i), "url": p["url"], "ts": p["date"], "title": title_of(p["html"])}))
    pages_bytes = ("\n".join(lines) + "\n").encode("utf-8")
    resources = [
        ("archive/data.warc.gz", warc_bytes),
        ("pages/pages.jsonl", pages_bytes),
    ]
    package = {
        "profile": "data-package",
        "wacz_version": "1.1.1",
        "resources": [
            {"name": os.path.basename(n), "path": n, "hash": sha256(b), "bytes": len(b)}
            for n, b in resources
        ],
    }
    if bad_hash:
        package["resources"][1]["hash"] = sha256(b"not these bytes")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("archive/data.warc.gz"), warc_bytes, compress_type=zipfile.ZIP_STORED)
        z.writestr(
            zipfile.ZipInfo("pages/pages.jsonl"),
            pages_bytes,
            compress_type=zipfile.ZIP_DEFLATED if deflate_pages else zipfile.ZIP_STORED,
        )
        z.writestr("datapackage.json", json.dumps(package, indent=2))
    if deflate_pages:
        # Damage the deflated bytes of pages.jsonl in place: its CRC (or inflation) fails.
        with zipfile.ZipFile(path) as z:
            info = z.getinfo("pages/pages.jsonl")
        with open(path, "r+b") as f:
            f.seek(info.header_offset + 26)
            name_len = int.from_bytes(f.read(2), "little")
            extra_len = int.from_bytes(f.read(2), "little")
            start = info.header_offset + 30 + name_len + extra_len
            mid = start + info.compress_size // 2
            f.seek(mid)
            chunk = bytearray(f.read(16))
            f.seek(mid)
            f.write(bytes(b ^ 0x5A for b in chunk))


def spark_field(s):
    """A field as Spark's CSV writer quotes it: quotes when needed, `\\"` inside."""
    if s == "":
        return ""
    if any(c in s for c in ',"\n\r\\'):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return s


def write_aut(ps, folder):
    os.makedirs(folder, exist_ok=True)
    half = (len(ps) + 1) // 2
    for n, chunk in enumerate([ps[:half], ps[half:]]):
        name = os.path.join(folder, f"part-0000{n}-5f3c0d1e-aut-c000.csv")
        with open(name, "w", encoding="utf-8", newline="") as f:
            for p in chunk:
                date14 = re.sub(r"[^0-9]", "", p["date"])[:14]
                text = page_text(p["html"]) or p["url"]
                row = [date14, p["url"], "text/html", "text/html", "en", text]
                f.write(",".join(spark_field(x) for x in row) + "\n")
    open(os.path.join(folder, "_SUCCESS"), "w").close()
    # Spark's checksum files: hidden, skipped by spotcheck.
    open(os.path.join(folder, ".part-00000-5f3c0d1e-aut-c000.csv.crc"), "wb").write(b"crc")


def write_parquet(ps, path):
    import datetime

    def ts(s):
        return datetime.datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)

    table = pa.table(
        {
            "url": pa.array([p["url"] for p in ps], pa.string()),
            "crawl_date": pa.array([ts(p["date"]) for p in ps], pa.timestamp("us", tz="UTC")),
            "title": pa.array([title_of(p["html"]) for p in ps], pa.string()),
            "html": pa.array([p["html"].decode("utf-8", "replace") for p in ps], pa.large_string()),
        }
    )
    # Several row groups, as big tables have.
    pq.write_table(table, path, row_group_size=max(1, len(ps) // 3))


def write_broken_csv(ps, path):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["url", "date", "title", "text"])
        for i, p in enumerate(ps):
            if i == 1:
                f.write("http://broken.example/,2008-04-30T20:48:25Z,only three fields\n")
            w.writerow([p["url"], p["date"], title_of(p["html"]), page_text(p["html"]) or p["url"]])


def main():
    warc, out = sys.argv[1], sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ps = pages(warc)
    with open(os.path.join(out, "expected.tsv"), "w") as f:
        for p in ps:
            f.write(f"{p['url']}\t{p['date']}\n")
    write_wet(ps, os.path.join(out, "pages.wet.gz"))
    write_wacz(ps, warc, os.path.join(out, "pages.wacz"))
    write_wacz(ps, warc, os.path.join(out, "damaged-hash.wacz"), bad_hash=True)
    write_wacz(ps, warc, os.path.join(out, "damaged-entry.wacz"), deflate_pages=True)
    write_aut(ps, os.path.join(out, "aut-webpages"))
    write_parquet(ps, os.path.join(out, "pages.parquet"))
    write_broken_csv(ps[:5], os.path.join(out, "broken-row.csv"))
    print(len(ps))


if __name__ == "__main__":
    main()
