//! strata's query engine: parses SQL, plans it and runs it in parallel over the
//! memory-mapped blocks of a strata table.
