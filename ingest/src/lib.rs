//! Reading CSV, TSV and Parquet input into strata tables.
