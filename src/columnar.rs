//! Columnar files, in and out: the Parquet and CSV helpers every module that reads or writes
//! tables shares (ingest's page tables and archive-tool derivatives, export's docs, pairs and
//! clusters; staged detection's files between stages).
//!
//! - Reading: [`ParquetTable`] opens a Parquet file once (its footer), then reads any row
//!   group with a column projection in batches, so a damaged row group costs only itself;
//!   [`cell_text`] reads one cell of any Arrow string, binary, integer, date or timestamp
//!   column as text (dates as ISO 8601 UTC).
//! - Writing: a [`Table`] is typed columns in memory; [`write_parquet`] writes it with
//!   proper types (64-bit ints, floats, UTC millisecond timestamps, lists of strings) and
//!   [`write_csv`] as RFC 4180 CSV (header row, quotes only where needed, UTF-8; lists as
//!   JSON arrays, timestamps as ISO 8601), which R's `read.csv` and pandas' `read_csv` read
//!   with no options.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Int16Type, Int32Type, Int64Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

/// The four bytes every Parquet file starts (and ends) with.
pub const PARQUET_MAGIC: &[u8] = b"PAR1";

// ------------------------------------------------------------------- reading

/// A Parquet file whose footer has been read: its schema and row groups.
pub struct ParquetTable {
    file: File,
    meta: ArrowReaderMetadata,
}

impl ParquetTable {
    pub fn open(path: &Path) -> Result<ParquetTable> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::default())
            .with_context(|| format!("{}: not a readable Parquet file", path.display()))?;
        Ok(ParquetTable { file, meta })
    }

    pub fn schema(&self) -> &SchemaRef {
        self.meta.schema()
    }

    /// The names of the top-level columns.
    pub fn column_names(&self) -> Vec<String> {
        self.schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    pub fn row_groups(&self) -> usize {
        self.meta.metadata().num_row_groups()
    }

    /// Rows in row group `i`.
    pub fn row_group_rows(&self, i: usize) -> u64 {
        self.meta
            .metadata()
            .row_groups()
            .get(i)
            .map_or(0, |g| g.num_rows().max(0) as u64)
    }

    /// A batched reader over row group `group`, reading only the top-level columns
    /// `columns` (their indices in [`Self::schema`]; the batches hold them in schema order).
    pub fn read_group(
        &self,
        group: usize,
        columns: &[usize],
        batch_rows: usize,
    ) -> Result<ParquetRecordBatchReader> {
        let file = self.file.try_clone()?;
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.meta.clone());
        let mask = ProjectionMask::roots(builder.parquet_schema(), columns.iter().copied());
        Ok(builder
            .with_projection(mask)
            .with_row_groups(vec![group])
            .with_batch_size(batch_rows)
            .build()?)
    }
}

/// One cell as text: strings as they are, binary as (lossy) UTF-8, integers in decimal,
/// dates and timestamps as ISO 8601 UTC. `None` for a null cell or a type without a text
/// form (lists, structs).
pub fn cell_text(array: &dyn Array, row: usize) -> Option<Cow<'_, str>> {
    if row >= array.len() || array.is_null(row) {
        return None;
    }
    let iso_millis = |ms: i64| iso_from_millis(ms).map(Cow::Owned);
    match array.data_type() {
        DataType::Utf8 => Some(Cow::Borrowed(array.as_string::<i32>().value(row))),
        DataType::LargeUtf8 => Some(Cow::Borrowed(array.as_string::<i64>().value(row))),
        DataType::Utf8View => Some(Cow::Borrowed(array.as_string_view().value(row))),
        DataType::Binary => Some(String::from_utf8_lossy(array.as_binary::<i32>().value(row))),
        DataType::LargeBinary => Some(String::from_utf8_lossy(array.as_binary::<i64>().value(row))),
        DataType::BinaryView => Some(String::from_utf8_lossy(array.as_binary_view().value(row))),
        DataType::Int64 => Some(Cow::Owned(
            array.as_primitive::<Int64Type>().value(row).to_string(),
        )),
        DataType::Int32 => Some(Cow::Owned(
            array.as_primitive::<Int32Type>().value(row).to_string(),
        )),
        DataType::Int16 => Some(Cow::Owned(
            array.as_primitive::<Int16Type>().value(row).to_string(),
        )),
        DataType::UInt64 => Some(Cow::Owned(
            array.as_primitive::<UInt64Type>().value(row).to_string(),
        )),
        DataType::UInt32 => Some(Cow::Owned(
            array.as_primitive::<UInt32Type>().value(row).to_string(),
        )),
        DataType::Date32 => {
            iso_millis(i64::from(array.as_primitive::<Date32Type>().value(row)) * 86_400_000)
        }
        DataType::Date64 => iso_millis(array.as_primitive::<Date64Type>().value(row)),
        // Timestamps with or without a zone are instants stored as UTC counts.
        DataType::Timestamp(unit, _) => {
            let ms = match unit {
                TimeUnit::Second => array
                    .as_primitive::<TimestampSecondType>()
                    .value(row)
                    .saturating_mul(1000),
                TimeUnit::Millisecond => {
                    array.as_primitive::<TimestampMillisecondType>().value(row)
                }
                TimeUnit::Microsecond => {
                    array.as_primitive::<TimestampMicrosecondType>().value(row) / 1000
                }
                TimeUnit::Nanosecond => {
                    array.as_primitive::<TimestampNanosecondType>().value(row) / 1_000_000
                }
            };
            iso_millis(ms)
        }
        DataType::Dictionary(_, _) => {
            // Categorical strings (pandas categories): the value the key points at.
            let dict = array.as_any_dictionary_opt()?;
            let key = dict.normalized_keys().get(row).copied()?;
            cell_text(dict.values().as_ref(), key).map(|c| Cow::Owned(c.into_owned()))
        }
        _ => None,
    }
}

/// Whether a column of this type can be read with [`cell_text`].
pub fn is_text_like(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::Int64
            | DataType::Int32
            | DataType::Int16
            | DataType::UInt64
            | DataType::UInt32
            | DataType::Date32
            | DataType::Date64
            | DataType::Timestamp(_, _)
            | DataType::Dictionary(_, _)
    )
}

/// ISO 8601 UTC (`YYYY-MM-DDThh:mm:ssZ`) of Unix milliseconds (the capture-date form).
pub fn iso_from_millis(ms: i64) -> Option<String> {
    crate::ingest::date::iso_from_unix_millis(ms)
}

// ------------------------------------------------------------------- writing

/// One typed column of a [`Table`].
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    Int(Vec<Option<i64>>),
    Float(Vec<Option<f64>>),
    Text(Vec<Option<String>>),
    /// Instants as Unix milliseconds (UTC).
    Timestamp(Vec<Option<i64>>),
    TextList(Vec<Vec<String>>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::Int(v) | Column::Timestamp(v) => v.len(),
            Column::Float(v) => v.len(),
            Column::Text(v) => v.len(),
            Column::TextList(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn to_arrow(&self) -> ArrayRef {
        match self {
            Column::Int(v) => Arc::new(Int64Array::from(v.clone())),
            Column::Float(v) => Arc::new(Float64Array::from(v.clone())),
            Column::Text(v) => Arc::new(StringArray::from(v.clone())),
            Column::Timestamp(v) => {
                Arc::new(TimestampMillisecondArray::from(v.clone()).with_timezone("UTC"))
            }
            Column::TextList(v) => {
                let mut b = ListBuilder::new(StringBuilder::new());
                for list in v {
                    for s in list {
                        b.values().append_value(s);
                    }
                    b.append(true);
                }
                Arc::new(b.finish())
            }
        }
    }

    /// The CSV field of row `i` (empty for null).
    fn csv_field(&self, i: usize) -> Result<String> {
        Ok(match self {
            Column::Int(v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
            Column::Float(v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
            Column::Text(v) => v[i].clone().unwrap_or_default(),
            Column::Timestamp(v) => v[i].and_then(iso_from_millis).unwrap_or_default(),
            Column::TextList(v) => serde_json::to_string(&v[i])?,
        })
    }
}

/// Named, typed columns of equal length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, column: Column) {
        self.columns.push((name.to_string(), column));
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    fn check(&self) -> Result<()> {
        let n = self.rows();
        if let Some((name, c)) = self.columns.iter().find(|(_, c)| c.len() != n) {
            anyhow::bail!("column {name} has {} rows, the table {n}", c.len());
        }
        Ok(())
    }

    /// The table as one Arrow record batch (every column nullable).
    pub fn to_record_batch(&self) -> Result<RecordBatch> {
        self.check()?;
        let arrays: Vec<ArrayRef> = self.columns.iter().map(|(_, c)| c.to_arrow()).collect();
        // Every column nullable, whether or not this table happens to hold a null: the
        // schema of an export does not depend on its data.
        let fields: Vec<Field> = self
            .columns
            .iter()
            .zip(&arrays)
            .map(|((n, _), a)| Field::new(n, a.data_type().clone(), true))
            .collect();
        Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?)
    }
}

/// Writes `table` as Parquet (snappy: every common reader has it).
pub fn write_parquet(table: &Table, out: impl Write + Send) -> Result<()> {
    let batch = table.to_record_batch()?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut writer = ArrowWriter::try_new(out, batch.schema(), Some(props))?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(())
}

/// Writes tables of one schema as Parquet row groups, one per [`ParquetSink::write`], with
/// key-value metadata in the schema (what a stage's file says about itself: its method,
/// parameters, document count). Streaming: a shard's signatures never sit in memory whole.
pub struct ParquetSink<W: Write + Send> {
    writer: Option<ArrowWriter<W>>,
    out: Option<W>,
    metadata: std::collections::HashMap<String, String>,
}

impl<W: Write + Send> ParquetSink<W> {
    pub fn new(out: W, metadata: &[(&str, String)]) -> Self {
        ParquetSink {
            writer: None,
            out: Some(out),
            metadata: metadata
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }

    /// Appends `table` as one row group (the first table fixes the schema).
    pub fn write(&mut self, table: &Table) -> Result<()> {
        let batch = table.to_record_batch()?;
        let schema = Arc::new(Schema::new_with_metadata(
            batch.schema().fields().clone(),
            self.metadata.clone(),
        ));
        let batch = batch.with_schema(schema.clone())?;
        if self.writer.is_none() {
            let props = WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .build();
            let out = self
                .out
                .take()
                .context("a Parquet sink written after it failed")?;
            self.writer = Some(ArrowWriter::try_new(out, schema, Some(props))?);
        }
        if let Some(w) = self.writer.as_mut() {
            w.write(&batch)?;
            w.flush()?;
        }
        Ok(())
    }

    /// Finishes the file; `empty` is written first when nothing was (so the file has its
    /// schema and metadata even with no rows).
    pub fn close(mut self, empty: &Table) -> Result<()> {
        if self.writer.is_none() {
            self.write(empty)?;
        }
        if let Some(w) = self.writer.take() {
            w.close()?;
        }
        Ok(())
    }
}

/// Every batch of a Parquet file, all columns (the stage files are read whole, row group by
/// row group), with the file's key-value metadata.
pub fn read_parquet_batches(
    path: &Path,
) -> Result<(Vec<RecordBatch>, std::collections::HashMap<String, String>)> {
    let table = ParquetTable::open(path)?;
    let metadata: std::collections::HashMap<String, String> = table
        .schema()
        .metadata()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let all: Vec<usize> = (0..table.schema().fields().len()).collect();
    let mut batches = Vec::new();
    for g in 0..table.row_groups() {
        for b in table.read_group(g, &all, 8192)? {
            batches.push(b.with_context(|| format!("{}: row group {g}", path.display()))?);
        }
    }
    Ok((batches, metadata))
}

fn named_column<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a ArrayRef> {
    batch
        .column_by_name(name)
        .with_context(|| format!("no column {name}"))
}

/// A string column of a batch by name (nulls as `None`).
pub fn batch_texts(batch: &RecordBatch, name: &str) -> Result<Vec<Option<String>>> {
    let a = named_column(batch, name)?;
    if !is_text_like(a.data_type()) {
        anyhow::bail!("column {name} is {}, not text", a.data_type());
    }
    Ok((0..a.len())
        .map(|i| cell_text(a.as_ref(), i).map(Cow::into_owned))
        .collect())
}

/// An integer column of a batch by name (nulls as `None`).
pub fn batch_ints(batch: &RecordBatch, name: &str) -> Result<Vec<Option<i64>>> {
    let a = named_column(batch, name)?;
    let a = a
        .as_primitive_opt::<Int64Type>()
        .with_context(|| format!("column {name} is {}, not a 64-bit integer", a.data_type()))?;
    Ok(a.iter().collect())
}

/// A float column of a batch by name (nulls as `None`).
pub fn batch_floats(batch: &RecordBatch, name: &str) -> Result<Vec<Option<f64>>> {
    let a = named_column(batch, name)?;
    let a = a
        .as_primitive_opt::<arrow_array::types::Float64Type>()
        .with_context(|| format!("column {name} is {}, not a float", a.data_type()))?;
    Ok(a.iter().collect())
}

/// A list-of-strings column of a batch by name (a null list or element reads as empty).
pub fn batch_text_lists(batch: &RecordBatch, name: &str) -> Result<Vec<Vec<String>>> {
    let a = named_column(batch, name)?;
    let lists = a
        .as_list_opt::<i32>()
        .with_context(|| format!("column {name} is {}, not a list", a.data_type()))?;
    let mut out = Vec::with_capacity(lists.len());
    for i in 0..lists.len() {
        if lists.is_null(i) {
            out.push(Vec::new());
            continue;
        }
        let values = lists.value(i);
        out.push(
            (0..values.len())
                .map(|j| cell_text(values.as_ref(), j).map_or_else(String::new, Cow::into_owned))
                .collect(),
        );
    }
    Ok(out)
}

/// Writes `table` as CSV: a header row, RFC 4180 quoting, UTF-8, `\n` line ends.
pub fn write_csv(table: &Table, out: impl Write) -> Result<()> {
    table.check()?;
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    w.write_record(table.columns.iter().map(|(n, _)| n.as_str()))?;
    for i in 0..table.rows() {
        let row = table
            .columns
            .iter()
            .map(|(_, c)| c.csv_field(i))
            .collect::<Result<Vec<_>>>()?;
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::default();
        t.push("id", Column::Int(vec![Some(1), None]));
        t.push("score", Column::Float(vec![Some(0.5), None]));
        t.push(
            "url",
            Column::Text(vec![Some("http://a/\"q\",x\nline".into()), None]),
        );
        t.push("date", Column::Timestamp(vec![Some(951_868_801_000), None]));
        t.push(
            "labels",
            Column::TextList(vec![vec!["a:confirmed".into(), "b".into()], vec![]]),
        );
        t
    }

    #[test]
    fn csv_has_a_header_and_rfc4180_quotes() {
        let mut out = Vec::new();
        write_csv(&sample(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "id,score,url,date,labels\n\
             1,0.5,\"http://a/\"\"q\"\",x\nline\",2000-03-01T00:00:01Z,\"[\"\"a:confirmed\"\",\"\"b\"\"]\"\n\
             ,,,,[]\n"
        );
    }

    #[test]
    fn parquet_round_trips_with_types() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        write_parquet(&sample(), File::create(&path).unwrap()).unwrap();
        let table = ParquetTable::open(&path).unwrap();
        assert_eq!(
            table.column_names(),
            ["id", "score", "url", "date", "labels"]
        );
        let schema = table.schema().clone();
        assert_eq!(
            schema.field(3).data_type(),
            &DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
        );
        assert!(matches!(schema.field(4).data_type(), DataType::List(_)));
        assert!(schema.fields().iter().all(|f| f.is_nullable()));
        let batches: Vec<RecordBatch> = table
            .read_group(0, &[0, 2, 3], 16)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let b = &batches[0];
        assert_eq!(b.num_columns(), 3);
        assert_eq!(cell_text(b.column(0).as_ref(), 0).as_deref(), Some("1"));
        assert_eq!(cell_text(b.column(0).as_ref(), 1), None);
        assert_eq!(
            cell_text(b.column(1).as_ref(), 0).as_deref(),
            Some("http://a/\"q\",x\nline")
        );
        assert_eq!(
            cell_text(b.column(2).as_ref(), 0).as_deref(),
            Some("2000-03-01T00:00:01Z")
        );
    }

    #[test]
    fn unequal_columns_are_refused() {
        let mut t = Table::default();
        t.push("a", Column::Int(vec![Some(1)]));
        t.push("b", Column::Int(vec![]));
        assert!(write_csv(&t, Vec::new()).is_err());
    }
}
