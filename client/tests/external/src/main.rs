//! Opens the table given as the first argument with the `strata` library and
//! prints a few query results.

fn main() -> Result<(), strata::Error> {
    let path = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let table = strata::Table::open_with(&path, strata::Options::new().threads(2))?;
    let result = table.query("SELECT id, name FROM t ORDER BY id")?;
    let ids = result.column(0).as_i64().unwrap_or(&[]);
    println!("rows={} ids={:?}", result.num_rows(), ids);
    for row in result.rows() {
        println!("{}", row.strings().join("|"));
    }
    match table.query("SELECT nope FROM t") {
        Err(e) => println!("error: {e}"),
        Ok(_) => println!("unexpected success"),
    }
    Ok(())
}
