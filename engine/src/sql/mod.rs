//! SQL text to a bound query: parsing (once per query), the FROM clause's
//! table references, and binding to a logical plan.

pub mod bind;
pub mod dialect;
pub mod exclude;
pub mod params;
pub mod parse;
pub mod table_ref;
