"""Scale a bench database K times: every document (with its content text and language),
every run's pairs and clusters copied K-1 times under new ids, each copy's URLs under a
top-level folder copyN/ (another site). Signatures are not copied (the queue reads none).

    python3 examples/tui_cold/scale.py SRC.db DST.db K

Made session 14's 102,810-page database (K = 6) from session 11's 17,135 pages; the merged
queue is stale afterwards, and the next `spotcheck queue` (or review's start) builds it."""
import sqlite3, sys
src, dst, K = sys.argv[1], sys.argv[2], int(sys.argv[3])
import shutil; shutil.copy(src, dst)
c = sqlite3.connect(dst)
N = c.execute("select max(id) from documents").fetchone()[0]
cols = [r[1] for r in c.execute("pragma table_info(documents)")]
C = c.execute("select max(cluster) from run_clusters").fetchone()[0]
for k in range(1, K):
    o = k * N
    sel = []
    for col in cols:
        if col in ("id", "dup_group", "revisit_of"):
            sel.append(f"{col} + {o}")
        elif col == "record_offset":
            sel.append(f"record_offset + {k} * 1000000000000")
        elif col == "url":
            sel.append(f"'copy{k}/' || url")
        else:
            sel.append(col)
    c.execute(f"insert into documents({','.join(cols)}) select {','.join(sel)} from documents where id <= {N}")
    c.execute(f"insert into content_texts select doc_id + {o}, text from content_texts where doc_id <= {N}")
    c.execute(f"insert into document_langs select doc_id + {o}, lang from document_langs where doc_id <= {N}")
    c.execute(f"insert into run_pairs select run_id, a + {o}, b + {o}, score, detail from run_pairs where a <= {N}")
    c.execute(f"insert into run_clusters select run_id, cluster + {k*C}, size, min_score, max_score, bridge_a + {o}, bridge_b + {o}, bridge_score from run_clusters where cluster <= {C}")
    c.execute(f"insert into run_cluster_members select run_id, cluster + {k*C}, doc_id + {o} from run_cluster_members where cluster <= {C}")
    c.commit()
    print(k, flush=True)
c.close()
