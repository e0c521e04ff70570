//! Aggregation: the functions ([`func`]), the sorted-vector group engine
//! the table engine runs (per-block sorted vectors of groups from the key
//! columns' sorted values, merged across blocks: [`plan`], [`layout`],
//! [`group`], [`merge`], [`output`]), and the hash aggregation over batches
//! the other operators use ([`accumulate`], [`fold`]). Both engines share
//! the statistics ([`moments`]), the quantiles, mode and entropy over
//! value-sorted runs ([`holistic`]) and HyperLogLog ([`hll`]).

pub mod accumulate;
pub mod arg_values;
pub mod factored;
pub mod float_sum;
pub mod fold;
pub mod from_values;
pub mod func;
pub mod group;
pub mod hll;
pub mod holistic;
pub mod layout;
pub mod merge;
pub mod moments;
pub mod output;
pub mod per_value;
pub mod plan;
pub mod state;
