//! A suite run's report as one JSON document (`strata-bench tpch --json`).

use std::fmt::Write as _;

use super::check::Verdict;
use super::fresh::{FreshQuery, FreshRuns};
use super::json::quote;
use super::{score_ratio, EngineName, EngineRun, QueryRun, Suite};

fn num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map_or_else(|| "null".into(), |x| format!("{x}"))
}

/// The report: engines (load time, size, memory) and per query the hot time of each
/// engine, strata's ratio to the best peer, the check's verdict and the fresh runs.
pub fn report(
    suite: &Suite,
    queries: &[String],
    selected: &[usize],
    runs: &[EngineRun],
    verdicts: &[Option<Verdict>],
    fresh: Option<&FreshRuns>,
) -> String {
    let mut o = String::new();
    let _ = write!(o, "{{\"suite\": {}, \"engines\": [", quote(suite.title));
    let engines: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{{\"name\": \"{}\", \"version\": {}, \"load_time\": {}, \"data_size\": {}, \"peak_rss\": {}}}",
                r.name.label(),
                quote(&r.version),
                num(Some(r.load_time)),
                r.data_size,
                r.peak_rss
            )
        })
        .collect();
    o.push_str(&engines.join(", "));
    o.push_str("],\n\"queries\": [");
    let strata = runs.iter().position(|r| r.name == EngineName::Strata);
    let mut items = Vec::new();
    for &i in selected {
        let hots: Vec<Option<f64>> = runs
            .iter()
            .map(|r| r.queries.get(i).and_then(QueryRun::hot))
            .collect();
        let times: Vec<String> = runs
            .iter()
            .zip(&hots)
            .map(|(r, h)| format!("\"{}\": {}", r.name.label(), num(*h)))
            .collect();
        let best_peer = runs
            .iter()
            .zip(&hots)
            .filter(|(r, _)| r.name != EngineName::Strata)
            .filter_map(|(_, h)| *h)
            .reduce(f64::min);
        let ratio = match (strata.and_then(|s| hots[s]), best_peer) {
            (Some(s), Some(b)) => Some(score_ratio(s, b, suite.score_shift)),
            _ => None,
        };
        let (verdict, detail) = match verdicts.get(i).cloned().flatten() {
            Some(Verdict::Ok) => ("ok", String::new()),
            Some(Verdict::OkTies) => ("ok_ties", String::new()),
            Some(Verdict::Mismatch(w)) => ("mismatch", w),
            Some(Verdict::Refused(w)) => ("refused", w),
            None => ("unchecked", String::new()),
        };
        let mut item = format!(
            "{{\"n\": {}, \"sql\": {}, \"times\": {{{}}}, \"ratio\": {}, \"verdict\": \"{verdict}\", \"detail\": {}",
            i + 1,
            quote(&queries[i]),
            times.join(", "),
            num(ratio),
            quote(&detail)
        );
        if let Some(f) = fresh {
            let m = |v: &[FreshQuery]| num(v.get(i).and_then(FreshQuery::median));
            let _ = write!(
                item,
                ", \"fresh\": {{\"strata\": {}, \"duckdb\": {}}}",
                m(&f.strata),
                m(&f.duckdb)
            );
        }
        item.push('}');
        items.push(item);
    }
    o.push_str(&items.join(",\n"));
    o.push(']');
    if let Some(f) = fresh {
        let _ = write!(
            o,
            ",\n\"fresh_runs\": {}, \"python_import_duckdb\": {}",
            f.runs,
            num(f.python_import)
        );
    }
    o.push('}');
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::json::parse;
    use crate::suite::QueryText;

    #[test]
    fn the_report_parses() {
        let suite = Suite {
            title: "t",
            table: "t",
            queries_duckdb: QueryText::Lines("SELECT 1\nSELECT 2"),
            queries_clickhouse: None,
            create_duckdb: "",
            create_clickhouse: None,
            score_shift: 0.0,
        };
        let q = |t: f64| QueryRun {
            times: vec![Some(t), Some(t)],
            ..Default::default()
        };
        let run = |name, t1, t2| EngineRun {
            name,
            version: "v".into(),
            load_time: 1.5,
            data_size: 10,
            peak_rss: 20,
            queries: vec![q(t1), q(t2)],
            split: Vec::new(),
        };
        let runs = vec![
            run(EngineName::Strata, 0.2, 0.1),
            run(EngineName::Duckdb, 0.1, 0.1),
        ];
        let verdicts = vec![
            Some(Verdict::Ok),
            Some(Verdict::Refused("not supported: x".into())),
        ];
        let queries = vec!["SELECT 1".to_string(), "SELECT 2".to_string()];
        let doc = parse(&report(&suite, &queries, &[0, 1], &runs, &verdicts, None)).unwrap();
        let items = doc.get("queries").items();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].get("ratio").num(), Some(2.0));
        assert_eq!(items[1].get("verdict").str(), Some("refused"));
        assert_eq!(items[1].get("detail").str(), Some("not supported: x"));
        assert_eq!(
            doc.get("engines").items()[1].get("name").str(),
            Some("duckdb")
        );
    }
}
