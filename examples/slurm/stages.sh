#!/bin/bash
# Staged detection on a Slurm cluster: one array task per shard for the per-shard stages,
# then one job for the small reduce and the match. Shards are whole sites (the content text
# is made per site): SHARDS/shard-K/ holds the crawl files of shard K.
#
#   sbatch --array=0-7 examples/slurm/stages.sh shard    # per-shard ingest + count
#   sbatch examples/slurm/stages.sh stats                # sum the counts (seconds)
#   sbatch --array=0-7 examples/slurm/stages.sh sign     # per-shard signatures
#   sbatch examples/slurm/stages.sh match                # pairs + clusters, then import
#
# The files between stages are Parquet; the match step can instead run on Spark over the
# same signed files (examples/spark/match.py; README, "More than one machine").
#
# Chain them with --dependency=afterok:JOBID. METHOD=spotsigs|imatch|cooper (default imatch);
# PARAMS='{"tau":0.5}' the run parameters in their stored form, the same for every stage
# (Cooper: '{"passage_min_terms":0}': its passage rule reads the texts, which the stages refuse;
# SpotSigs: '{"fallback_tau":0}', its fallback for unsigned pages, likewise).
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=02:00:00
set -euo pipefail
SHARDS=${SHARDS:-$PWD/shards}
WORK=${WORK:-$PWD/work}
METHOD=${METHOD:-imatch}
PARAMS=${PARAMS:-'{}'}
K=${SLURM_ARRAY_TASK_ID:-0}
mkdir -p "$WORK"
case "${1:?stage: shard|stats|sign|match}" in
  shard)
    spotcheck ingest --quiet --no-main --db "$WORK/shard-$K.db" "$SHARDS/shard-$K"
    spotcheck stage count --db "$WORK/shard-$K.db" --method "$METHOD" --params "$PARAMS" \
      --out "$WORK/shard-$K.$METHOD.counts.parquet" ;;
  stats)
    spotcheck stage stats --out "$WORK/$METHOD.stats.parquet" "$WORK"/shard-*."$METHOD".counts.parquet ;;
  sign)
    spotcheck stage sign --db "$WORK/shard-$K.db" --method "$METHOD" --params "$PARAMS" \
      --stats "$WORK/$METHOD.stats.parquet" --out "$WORK/shard-$K.$METHOD.signed.parquet" ;;
  match)
    spotcheck stage match --method "$METHOD" --params "$PARAMS" --stats "$WORK/$METHOD.stats.parquet" \
      --out "$WORK/$METHOD.run.parquet" "$WORK"/shard-*."$METHOD".signed.parquet
    # The review database: every shard's files in one database, then the staged run.
    if [ -n "${REVIEW_DB:-}" ]; then
      spotcheck stage import --db "$REVIEW_DB" --run "$WORK/$METHOD.run.parquet"
    fi ;;
  *) echo "unknown stage $1" >&2; exit 2 ;;
esac
