"""The independent reader of the damage suite (tests/reliability/damage.rs): reads each
WARC/ARC file named on the command line with warcio and prints one JSON line per file:
every response, resource and revisit record it read whole (type, target URI, date as
digits, SHA-1 of its headers and content, offset), and where and why it stopped if it did.
A record counts as read whole when its content was read to the end without an error (warcio
reads a record cut short by the end of the file without complaint: the test compares the
hash with the undamaged file's to tell)."""
import hashlib
import json
import re
import sys

from warcio.archiveiterator import ArchiveIterator

KEPT = {"response", "resource", "revisit"}


def read(path):
    records, stopped = [], None
    is_arc = ".arc" in path
    with open(path, "rb") as f:
        it = ArchiveIterator(f, arc2warc=True)
        try:
            for rec in it:
                h = hashlib.sha1()
                if is_arc:
                    # arc2warc makes up a new WARC-Record-ID at each read: hash the rest.
                    for name, value in rec.rec_headers.headers:
                        if name != "WARC-Record-ID":
                            h.update(f"{name}: {value}\n".encode())
                else:
                    h.update(rec.rec_headers.to_bytes())
                if rec.http_headers is not None:
                    h.update(rec.http_headers.to_bytes())
                stream = rec.raw_stream
                while True:
                    chunk = stream.read(65536)
                    if not chunk:
                        break
                    h.update(chunk)
                # After the content: warcio's get_record_offset reads the record to its end.
                offset = it.get_record_offset()
                if rec.rec_type in KEPT:
                    records.append({
                        "type": rec.rec_type,
                        "url": rec.rec_headers.get_header("WARC-Target-URI") or "",
                        "date": re.sub(r"\D", "", rec.rec_headers.get_header("WARC-Date") or "")[:14],
                        "sha1": h.hexdigest(),
                        "offset": offset,
                    })
        except Exception as e:  # the reader gives up here: what follows is not read
            stopped = f"{type(e).__name__}: {e}"[:200]
    return {"file": path, "records": records, "stopped": stopped}


for p in sys.argv[1:]:
    print(json.dumps(read(p)))
