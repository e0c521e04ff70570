//! Aggregation: the functions ([`func`]), the sorted-vector group engine
//! the table engine runs (per-block sorted vectors of groups from the key
//! columns' sorted values, merged across blocks: [`plan`], [`layout`],
//! [`group`], [`merge`], [`output`]), and the hash aggregation over batches
//! the other operators use ([`accumulate`]).

pub mod accumulate;
pub mod func;
pub mod group;
pub mod layout;
pub mod merge;
pub mod output;
pub mod plan;
pub mod state;
