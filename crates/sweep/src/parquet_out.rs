//! The sweep table as Parquet, with the `parquet` crate's column writer (no
//! Arrow: a flat table of optional INT64 / DOUBLE / BOOLEAN / UTF-8 columns needs
//! nothing more). One row group, Snappy pages. The bytes depend only on the
//! table, so the same sweep gives a byte-identical file whichever executor ran it.

use crate::table::{Cell, ColumnType, Table};
use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::sync::Arc;

/// The table as a Parquet file's bytes.
pub fn to_parquet(table: &Table) -> Result<Vec<u8>, String> {
    let err = |e: parquet::errors::ParquetError| format!("cannot write Parquet: {e}");
    let fields = table
        .columns
        .iter()
        .map(|c| {
            let (physical, logical) = match c.kind {
                ColumnType::Int64 => (PhysicalType::INT64, None),
                ColumnType::Double => (PhysicalType::DOUBLE, None),
                ColumnType::Boolean => (PhysicalType::BOOLEAN, None),
                ColumnType::Utf8 => (PhysicalType::BYTE_ARRAY, Some(LogicalType::String)),
            };
            Type::primitive_type_builder(&c.name, physical)
                .with_repetition(Repetition::OPTIONAL)
                .with_logical_type(logical)
                .build()
                .map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    let schema = Arc::new(
        Type::group_type_builder("zonelab_sweep")
            .with_fields(fields)
            .build()
            .map_err(err)?,
    );
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build(),
    );
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema, props).map_err(err)?;
    let mut group = writer.next_row_group().map_err(err)?;
    for c in &table.columns {
        let mut w = group
            .next_column()
            .map_err(err)?
            .ok_or("the Parquet schema has fewer columns than the table")?;
        let defs: Vec<i16> = c
            .cells
            .iter()
            .map(|v| i16::from(*v != Cell::Null))
            .collect();
        match c.kind {
            ColumnType::Int64 => {
                let v: Vec<i64> = c
                    .cells
                    .iter()
                    .filter_map(|x| match x {
                        Cell::Int(i) => Some(*i),
                        _ => None,
                    })
                    .collect();
                w.typed::<Int64Type>().write_batch(&v, Some(&defs), None)
            }
            ColumnType::Double => {
                let v: Vec<f64> = c.cells.iter().filter_map(Cell::as_f64).collect();
                w.typed::<DoubleType>().write_batch(&v, Some(&defs), None)
            }
            ColumnType::Boolean => {
                let v: Vec<bool> = c
                    .cells
                    .iter()
                    .filter_map(|x| match x {
                        Cell::Bool(b) => Some(*b),
                        _ => None,
                    })
                    .collect();
                w.typed::<BoolType>().write_batch(&v, Some(&defs), None)
            }
            ColumnType::Utf8 => {
                let v: Vec<ByteArray> = c
                    .cells
                    .iter()
                    .filter_map(|x| match x {
                        Cell::Text(s) => Some(ByteArray::from(s.as_str())),
                        _ => None,
                    })
                    .collect();
                w.typed::<ByteArrayType>()
                    .write_batch(&v, Some(&defs), None)
            }
        }
        .map_err(err)?;
        w.close().map_err(err)?;
    }
    group.close().map_err(err)?;
    writer.close().map_err(err)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{Column, Role};
    use parquet::file::reader::{FileReader, SerializedFileReader};

    #[test]
    fn a_table_round_trips_through_parquet_and_writes_the_same_bytes_twice() {
        let t = Table {
            columns: vec![
                Column::new("run", Role::Bookkeeping, vec![Cell::Int(0), Cell::Int(1)]),
                Column::new(
                    "device.flash.channels",
                    Role::Param,
                    vec![Cell::Int(4), Cell::Null],
                ),
                Column::new(
                    "rw",
                    Role::Base,
                    vec![Cell::Text("write".into()), Cell::Text("read".into())],
                ),
                Column::new("waf", Role::Metric, vec![Cell::Float(1.5), Cell::Null]),
                Column::new("ok", Role::Param, vec![Cell::Bool(true), Cell::Bool(false)]),
            ],
        };
        let bytes = to_parquet(&t).unwrap();
        assert_eq!(to_parquet(&t).unwrap(), bytes);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        std::fs::write(&path, &bytes).unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let meta = reader.metadata();
        assert_eq!(meta.file_metadata().num_rows(), 2);
        let schema = meta.file_metadata().schema_descr();
        assert_eq!(schema.column(1).name(), "device.flash.channels");
        let rows: Vec<String> = reader
            .get_row_iter(None)
            .unwrap()
            .map(|r| r.unwrap().to_string())
            .collect();
        assert_eq!(
            rows[0],
            "{run: 0, device.flash.channels: 4, rw: \"write\", waf: 1.5, ok: true}"
        );
        assert_eq!(
            rows[1],
            "{run: 1, device.flash.channels: null, rw: \"read\", waf: null, ok: false}"
        );
    }
}
