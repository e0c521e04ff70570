-- Single-table queries from Apache DataFusion's sqllogictest files (see SOURCE.txt),
-- written by extract.py. Header: -- @query <n> <file>:<line> table=<table id>
-- [df-error: DataFusion's own test expects an error]. Answers come from DuckDB.

-- @query 1 aggregate.slt:162 table=aggregate_test_100 df-error
SELECT SUM(c2) WITHIN GROUP (ORDER BY c2) FROM aggregate_test_100;

-- @query 2 aggregate.slt:216 table=aggregate_test_100
SELECT array_agg(c13 ORDER BY c13)
FROM
  (SELECT *
  FROM aggregate_test_100
  ORDER BY c13
  LIMIT 5) as t1;

-- @query 3 aggregate.slt:227 table=aggregate_test_100
SELECT array_agg(DISTINCT c13 ORDER BY c13)
FROM
  (SELECT *
  FROM aggregate_test_100
  ORDER BY c13
  LIMIT 5) as t1;

-- @query 4 aggregate.slt:237 table=aggregate_test_100 df-error
SELECT array_agg(DISTINCT c13 ORDER BY c12)
FROM aggregate_test_100;

-- @query 5 aggregate.slt:241 table=aggregate_test_100 df-error
SELECT array_agg(DISTINCT c13 ORDER BY c13, c12)
FROM aggregate_test_100;

-- @query 6 aggregate.slt:255 table=aggregate_test_100
SELECT
    (SELECT array_agg(c12 ORDER BY c12) FROM aggregate_test_100),
    (SELECT array_agg(c13 ORDER BY c13) FROM aggregate_test_100);

-- @query 7 aggregate.slt:262 table=aggregate_test_100
SELECT
    array_agg(c12 ORDER BY c12),
    array_agg(c13 ORDER BY c13)
FROM aggregate_test_100;

-- @query 8 aggregate.slt:280 table=aggregate_test_100
SELECT
    (SELECT array_agg(DISTINCT c12 ORDER BY c12) FROM aggregate_test_100),
    (SELECT array_agg(DISTINCT c13 ORDER BY c13) FROM aggregate_test_100);

-- @query 9 aggregate.slt:287 table=aggregate_test_100
SELECT
    array_agg(DISTINCT c12 ORDER BY c12),
    array_agg(DISTINCT c13 ORDER BY c13)
FROM aggregate_test_100;

-- @query 10 aggregate.slt:484 table=aggregate_test_100 df-error
SELECT array_agg(c13 LIMIT 1) FROM aggregate_test_100;

-- @query 11 aggregate.slt:558 table=aggregate_test_100
SELECT avg(c12) FROM aggregate_test_100;

-- @query 12 aggregate.slt:564 table=aggregate_test_100
SELECT bit_and(c5), bit_and(c6), bit_and(c7), bit_and(c8), bit_and(c9) FROM aggregate_test_100;

-- @query 13 aggregate.slt:570 table=aggregate_test_100
SELECT bit_and(distinct c5), bit_and(distinct c6), bit_and(distinct c7), bit_and(distinct c8), bit_and(distinct c9) FROM aggregate_test_100;

-- @query 14 aggregate.slt:576 table=aggregate_test_100
SELECT bit_or(c5), bit_or(c6), bit_or(c7), bit_or(c8), bit_or(c9) FROM aggregate_test_100;

-- @query 15 aggregate.slt:582 table=aggregate_test_100
SELECT bit_or(distinct c5), bit_or(distinct c6), bit_or(distinct c7), bit_or(distinct c8), bit_or(distinct c9) FROM aggregate_test_100;

-- @query 16 aggregate.slt:588 table=aggregate_test_100
SELECT bit_xor(c5), bit_xor(c6), bit_xor(c7), bit_xor(c8), bit_xor(c9) FROM aggregate_test_100;

-- @query 17 aggregate.slt:594 table=aggregate_test_100
SELECT bit_xor(distinct c5), bit_xor(distinct c6), bit_xor(distinct c7), bit_xor(distinct c8), bit_xor(distinct c9) FROM aggregate_test_100;

-- @query 18 aggregate.slt:600 table=aggregate_test_100
SELECT bit_xor(distinct c5 % 2) FROM aggregate_test_100;

-- @query 19 aggregate.slt:612 table=aggregate_test_100
SELECT covar_pop(c2, c12) FROM aggregate_test_100;

-- @query 20 aggregate.slt:678 table=aggregate_test_100
SELECT corr(c2, c12) FROM aggregate_test_100;

-- @query 21 aggregate.slt:798 table=aggregate_test_100
SELECT var_pop(c2) FROM aggregate_test_100;

-- @query 22 aggregate.slt:804 table=aggregate_test_100
SELECT var_pop(c6) FROM aggregate_test_100;

-- @query 23 aggregate.slt:810 table=aggregate_test_100
SELECT var_pop(c12) FROM aggregate_test_100;

-- @query 24 aggregate.slt:833 table=aggregate_test_100
SELECT var_pop(distinct c2) FROM aggregate_test_100;

-- @query 25 aggregate.slt:838 table=aggregate_test_100
SELECT var_pop(c2), var_pop(distinct c2) FROM aggregate_test_100;

-- @query 26 aggregate.slt:844 table=aggregate_test_100
SELECT var_samp(c2) FROM aggregate_test_100;

-- @query 27 aggregate.slt:850 table=aggregate_test_100
SELECT stddev_pop(c2) FROM aggregate_test_100;

-- @query 28 aggregate.slt:856 table=aggregate_test_100
SELECT stddev_pop(c6) FROM aggregate_test_100;

-- @query 29 aggregate.slt:862 table=aggregate_test_100
SELECT stddev_pop(c12) FROM aggregate_test_100;

-- @query 30 aggregate.slt:868 table=aggregate_test_100
SELECT stddev(c12) FROM aggregate_test_100;

-- @query 31 aggregate.slt:874 table=aggregate_test_100
SELECT stddev_samp(c12) FROM aggregate_test_100;

-- @query 32 aggregate.slt:886 table=aggregate_test_100
SELECT c2, stddev_samp(c12) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 33 aggregate.slt:896 table=aggregate_test_100
SELECT c2, stddev_pop(c12) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 34 aggregate.slt:906 table=aggregate_test_100
SELECT c2, var_pop(c12) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 35 aggregate.slt:916 table=aggregate_test_100
SELECT c2, var_samp(c12) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 36 aggregate.slt:926 table=aggregate_test_100
SELECT c2, var_samp(c12) FROM aggregate_test_100 WHERE c12 > 0.90 GROUP BY c2 ORDER BY c2;

-- @query 37 aggregate.slt:936 table=aggregate_test_100
SELECT c2, var_samp(c12) FILTER (WHERE c12 > 0.95) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 38 aggregate.slt:956 table=t@aggregate.slt:945
WITH s AS (
    SELECT
        COUNT(a) FILTER (WHERE (b * b) - 3600 <= b),
	COUNT(a) FILTER (WHERE (b * b) - 3000 <= b AND (c >= 0)),
	COUNT(a) FILTER (WHERE (b * b) - 3000 <= b AND (c >= 0) AND (c >= 0))
    FROM t
) SELECT * FROM s;

-- @query 39 aggregate.slt:971 table=aggregate_test_100
SELECT c2, var_samp(CASE WHEN c12 > 0.90 THEN c12 ELSE null END) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 40 aggregate.slt:1005 table=aggregate_test_100
SELECT median(c2) FROM aggregate_test_100;

-- @query 41 aggregate.slt:1011 table=aggregate_test_100
SELECT median(c6) FROM aggregate_test_100;

-- @query 42 aggregate.slt:1017 table=aggregate_test_100
SELECT median(c12) FROM aggregate_test_100;

-- @query 43 aggregate.slt:1049 table=aggregate_test_100 df-error
SELECT median(c2) IGNORE NULLS FROM aggregate_test_100;

-- @query 44 aggregate.slt:1052 table=aggregate_test_100 df-error
SELECT median(c2) RESPECT NULLS FROM aggregate_test_100;

-- @query 45 aggregate.slt:1198 table=median_window_test@aggregate.slt:1185
SELECT
    timestamp,
    tags,
    value,
    median(value) OVER (
        PARTITION BY tags
        ORDER BY timestamp
        ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING
    ) AS value_median_3
FROM median_window_test
ORDER BY tags, timestamp;

-- @query 46 aggregate.slt:1223 table=median_window_test@aggregate.slt:1185
SELECT
    timestamp,
    tags,
    value,
    median(value) OVER (
        PARTITION BY tags
        ORDER BY timestamp
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS value_median_unbounded_preceding,
    median(value) OVER (
        PARTITION BY tags
        ORDER BY timestamp
        ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS value_median_unbounded_both,
    median(value) OVER (
        PARTITION BY tags
        ORDER BY timestamp
        ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING
    ) AS value_median_unbounded_following
FROM median_window_test
ORDER BY tags, timestamp;

-- @query 47 aggregate.slt:1371 table=median_window_test@aggregate.slt:1185
SELECT
    timestamp,
    tags,
    value,
    median(DISTINCT value) OVER (
        PARTITION BY tags
        ORDER BY timestamp
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS distinct_median
FROM median_window_test
ORDER BY tags, timestamp;

-- @query 48 aggregate.slt:1471 table=t@aggregate.slt:1468
select median(c) from t;

-- @query 49 aggregate.slt:1483 table=t@aggregate.slt:1480
select median(c) from t;

-- @query 50 aggregate.slt:1495 table=t@aggregate.slt:1492
select median(c) from t;

-- @query 51 aggregate.slt:1507 table=t@aggregate.slt:1504
select median(c) from t;

-- @query 52 aggregate.slt:1519 table=t@aggregate.slt:1516
select median(c) from t;

-- @query 53 aggregate.slt:1531 table=t@aggregate.slt:1528
select median(c) from t;

-- @query 54 aggregate.slt:1543 table=t@aggregate.slt:1540
select median(distinct c) from t;

-- @query 55 aggregate.slt:1555 table=t@aggregate.slt:1552
select median(distinct c) from t;

-- @query 56 aggregate.slt:1567 table=t@aggregate.slt:1564
select median(distinct c) from t;

-- @query 57 aggregate.slt:1579 table=t@aggregate.slt:1576
select median(distinct c) from t;

-- @query 58 aggregate.slt:1591 table=t@aggregate.slt:1588
select median(distinct c) from t;

-- @query 59 aggregate.slt:1603 table=t@aggregate.slt:1600
select median(distinct c) from t;

-- @query 60 aggregate.slt:1615 table=t@aggregate.slt:1612
select median(distinct c) from t;

-- @query 61 aggregate.slt:1627 table=t@aggregate.slt:1624
select median(distinct c) from t;

-- @query 62 aggregate.slt:1639 table=t@aggregate.slt:1636
select median(distinct c) from t;

-- @query 63 aggregate.slt:1651 table=t@aggregate.slt:1648
select median(distinct c) from t;

-- @query 64 aggregate.slt:1663 table=t@aggregate.slt:1660
select median(distinct c) from t;

-- @query 65 aggregate.slt:1675 table=t@aggregate.slt:1672
select median(distinct c) from t;

-- @query 66 aggregate.slt:1718 table=cpu@aggregate.slt:1711
select host, median(usage) from cpu group by host;

-- @query 67 aggregate.slt:1765 table=cpu@aggregate.slt:1753
select host, median(usage) from cpu group by host;

-- @query 68 aggregate.slt:1780 table=cpu@aggregate.slt:1777
select host, median(usage) from cpu group by host;

-- @query 69 aggregate.slt:1790 table=aggregate_test_100
SELECT COUNT(c12) FROM aggregate_test_100;

-- @query 70 aggregate.slt:1796 table=aggregate_test_100
SELECT SUM(CAST(c7 AS BIGINT)), SUM(CAST(c8 AS BIGINT)) FROM aggregate_test_100;

-- @query 71 aggregate.slt:1802 table=aggregate_test_100
SELECT count(c12) FROM aggregate_test_100;

-- @query 72 aggregate.slt:1808 table=aggregate_test_100
SELECT count(distinct c2) FROM aggregate_test_100;

-- @query 73 aggregate.slt:1814 table=aggregate_test_100
SELECT count(distinct c2 % 2) FROM aggregate_test_100;

-- @query 74 aggregate.slt:1820 table=aggregate_test_100
SELECT COUNT(*) FROM aggregate_test_100;

-- @query 75 aggregate.slt:1825 table=aggregate_test_100
SELECT COUNT(aggregate_test_100.*) FROM aggregate_test_100;

-- @query 76 aggregate.slt:1830 table=aggregate_test_100 df-error
SELECT COUNT(foo.*) FROM aggregate_test_100;

-- @query 77 aggregate.slt:1834 table=aggregate_test_100
SELECT COUNT(2) FROM aggregate_test_100;

-- @query 78 aggregate.slt:2326 table=aggregate_test_100
SELECT c1, c2, AVG(c3) FROM aggregate_test_100 GROUP BY CUBE (c1, c2) ORDER BY c1, c2;

-- @query 79 aggregate.slt:2367 table=aggregate_test_100
SELECT c1, c2, c3, AVG(c4) FROM aggregate_test_100 WHERE c1 IN ('a', 'b', NULL) GROUP BY ROLLUP (c1, c2, c3) ORDER BY c1, c2, c3;

-- @query 80 aggregate.slt:2424 table=aggregate_test_100
SELECT c1, c2, c3, AVG(c4)
FROM aggregate_test_100
WHERE c1 IN ('a', 'b', NULL)
GROUP BY GROUPING SETS ((c1), (c1,c2), (c1,c2,c3))
ORDER BY c1, c2, c3;

-- @query 81 aggregate.slt:2484 table=aggregate_test_100
SELECT c1, c2, c3, AVG(c4)
FROM aggregate_test_100
WHERE c1 IN ('a', 'b', NULL)
GROUP BY c1, ROLLUP (c2, c3)
ORDER BY c1, c2, c3;

-- @query 82 aggregate.slt:2576 table=aggregate_test_100
SELECT c1, avg(c2) AS c2, avg(c3) AS c3 FROM aggregate_test_100 GROUP BY 1 ORDER BY 1;

-- @query 83 aggregate.slt:2664 table=aggregate_test_100
SELECT a.c1, b.c1, SUM(a.c2) FROM aggregate_test_100 as a CROSS JOIN aggregate_test_100 as b GROUP BY a.c1, b.c1 ORDER BY a.c1, b.c1;

-- @query 84 aggregate.slt:2694 table=aggregate_test_100
SELECT a.c1, b.c1, SUM(a.c2) FROM aggregate_test_100 as a CROSS JOIN aggregate_test_100 as b GROUP BY CUBE (a.c1, b.c1) ORDER BY a.c1, b.c1;

-- @query 85 aggregate.slt:2735 table=aggregate_test_100
SELECT c1, c2, COUNT(DISTINCT c3) FROM aggregate_test_100 GROUP BY CUBE (c1,c2) ORDER BY c1,c2;

-- @query 86 aggregate.slt:2776 table=aggregate_test_100
SELECT c1, c2, COUNT(DISTINCT c3) FROM aggregate_test_100 GROUP BY ROLLUP (c1,c2) ORDER BY c1,c2;

-- @query 87 aggregate.slt:2812 table=aggregate_test_100
SELECT a.c1, b.c1, SUM(a.c2) FROM aggregate_test_100 as a CROSS JOIN aggregate_test_100 as b GROUP BY ROLLUP (a.c1, b.c1) ORDER BY a.c1, b.c1;

-- @query 88 aggregate.slt:2854 table=aggregate_test_100
SELECT array_agg(c13) FROM (SELECT * FROM aggregate_test_100 ORDER BY c13 LIMIT 2) test;

-- @query 89 aggregate.slt:2860 table=aggregate_test_100
SELECT array_agg(c13) FROM (SELECT * FROM aggregate_test_100 LIMIT 0) test;

-- @query 90 aggregate.slt:2866 table=aggregate_test_100
SELECT array_agg(c13) FROM (SELECT * FROM aggregate_test_100 ORDER BY c13 LIMIT 1) test;

-- @query 91 aggregate.slt:2872 table=aggregate_test_100
select c2, sum(c3) sum_c3, avg(c3) avg_c3, max(c3) max_c3, min(c3) min_c3, count(c3) count_c3 from aggregate_test_100 group by c2 order by c2;

-- @query 92 aggregate.slt:2882 table=aggregate_test_100
select c1, c2, sum(c3) sum_c3, avg(c3) avg_c3, max(c3) max_c3, min(c3) min_c3, count(c3) count_c3 from aggregate_test_100 group by CUBE (c1,c2) order by c1, c2;

-- @query 93 aggregate.slt:2924 table=aggregate_test_100
SELECT array_sort(array_agg(distinct c2)), count(1) FROM aggregate_test_100;

-- @query 94 aggregate.slt:2970 table=test@aggregate.slt:68
SELECT SUM(c1), SUM(c2) FROM test;

-- @query 95 aggregate.slt:2977 table=test@aggregate.slt:68
SELECT SUM(c1), SUM(c2) FROM test where c1 > 100000;

-- @query 96 aggregate.slt:2983 table=test@aggregate.slt:68
SELECT AVG(c1), AVG(c2) FROM test;

-- @query 97 aggregate.slt:2989 table=test@aggregate.slt:68
SELECT MAX(c1), MAX(c2) FROM test;

-- @query 98 aggregate.slt:2995 table=test@aggregate.slt:68
SELECT MIN(c1), MIN(c2) FROM test;

-- @query 99 aggregate.slt:3000 table=test@aggregate.slt:68 df-error
SELECT MIN(c1, c2) FROM test;

-- @query 100 aggregate.slt:3003 table=test@aggregate.slt:68 df-error
SELECT MAX(c1, c2) FROM test;

-- @query 101 aggregate.slt:3007 table=test@aggregate.slt:68
SELECT c1, SUM(c2) FROM test GROUP BY c1 order by c1;

-- @query 102 aggregate.slt:3016 table=test@aggregate.slt:68
SELECT c1, AVG(c2) FROM test GROUP BY c1 order by c1;

-- @query 103 aggregate.slt:3025 table=test@aggregate.slt:68
SELECT c1, AVG(c2) FROM test WHERE c1 = 123 GROUP BY c1;

-- @query 104 aggregate.slt:3030 table=test@aggregate.slt:68
SELECT c1, MAX(c2) FROM test GROUP BY c1 order by c1;

-- @query 105 aggregate.slt:3039 table=test@aggregate.slt:68
SELECT c1, MIN(c2) FROM test GROUP BY c1 order by c1;

-- @query 106 aggregate.slt:3048 table=aggregate_test_100
SELECT
MIN(c12) OVER (ORDER BY C12 RANGE BETWEEN 0.3 PRECEDING AND 0.2 FOLLOWING) as min1,
MAX(c12) OVER (ORDER BY C11 RANGE BETWEEN 0.1 PRECEDING AND 0.2 FOLLOWING) as max1
FROM aggregate_test_100
ORDER BY C9
LIMIT 5;

-- @query 107 aggregate.slt:3063 table=aggregate_test_100
SELECT
MIN(c12) OVER (ORDER BY C12 RANGE BETWEEN UNBOUNDED PRECEDING AND 0.2 FOLLOWING) as min1,
MAX(c12) OVER (ORDER BY C11 RANGE BETWEEN UNBOUNDED PRECEDING AND 0.2 FOLLOWING) as max1
FROM aggregate_test_100
ORDER BY C9
LIMIT 5;

-- @query 108 aggregate.slt:3078 table=test@aggregate.slt:68
SELECT AVG(c1), AVG(c1) + 1, AVG(c1) + 2, 1 + AVG(c1) FROM test;

-- @query 109 aggregate.slt:3084 table=test@aggregate.slt:68
SELECT max(c1) FROM test;

-- @query 110 aggregate.slt:3177 table=test@aggregate.slt:68
SELECT COUNT(c1), COUNT(c2) FROM test;

-- @query 111 aggregate.slt:3205 table=test@aggregate.slt:68
SELECT c1, count(c2) FROM test WHERE c1 IS NOT NULL group by c1 order by c1;

-- @query 112 aggregate.slt:3216 table=table_agg_cube@aggregate.slt:3212
SELECT c1, c2, count(c3) FROM table_agg_cube GROUP BY CUBE (c1, c2) ORDER BY c1, c2;

-- @query 113 aggregate.slt:3240 table=test@aggregate.slt:68
SELECT count(c1, c2) FROM test;

-- @query 114 aggregate.slt:3246 table=test@aggregate.slt:68 df-error
SELECT count(distinct c1, c2) FROM test;

-- @query 115 aggregate.slt:3250 table=test@aggregate.slt:68
SELECT count(null), count(null, null), count(distinct null) FROM test;

-- @query 116 aggregate.slt:3256 table=test@aggregate.slt:68
SELECT count(c1, c2) FROM test group by c1 order by c1;

-- @query 117 aggregate.slt:3265 table=test@aggregate.slt:68
SELECT count(null), count(null, null), count(distinct null) FROM test group by c1 order by c1;

-- @query 118 aggregate.slt:3274 table=test@aggregate.slt:68
select c1, sum(c2) as `Total Salary` from test group by c1 order by c1;

-- @query 119 aggregate.slt:3284 table=test@aggregate.slt:68
select avg(c1) from test;

-- @query 120 aggregate.slt:3448 table=corr_test@aggregate.slt:3431
SELECT corr(int32_col, float64_col) FROM corr_test;

-- @query 121 aggregate.slt:3454 table=corr_test@aggregate.slt:3431
SELECT corr(int64_col, int32_col) FROM corr_test;

-- @query 122 aggregate.slt:3460 table=corr_test@aggregate.slt:3431
SELECT corr(float32_col, int8_col) FROM corr_test;

-- @query 123 aggregate.slt:3466 table=corr_test@aggregate.slt:3431
SELECT corr(uint32_col, int16_col) FROM corr_test;

-- @query 124 aggregate.slt:3484 table=corr_nulls@aggregate.slt:3472
SELECT corr(x, y) FROM corr_nulls;

-- @query 125 aggregate.slt:3497 table=corr_single_row@aggregate.slt:3490
SELECT corr(x, y) FROM corr_single_row;

-- @query 126 aggregate.slt:3511 table=corr_all_nulls@aggregate.slt:3503
SELECT corr(x, y) FROM corr_all_nulls;

-- @query 127 aggregate.slt:3976 table=test@aggregate.slt:68
select mean(c1) from test;

-- @query 128 aggregate.slt:4030 table=test@aggregate.slt:68
SELECT AVG(c1), SUM(DISTINCT c2) FROM test;

-- @query 129 aggregate.slt:4036 table=test@aggregate.slt:68
SELECT SUM(DISTINCT c1), SUM(DISTINCT c2) FROM test;

-- @query 130 aggregate.slt:4042 table=test@aggregate.slt:68
SELECT COUNT(DISTINCT c1) FROM test;

-- @query 131 aggregate.slt:4068 table=aggregate_test_100 df-error
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY c3) FROM aggregate_test_100;

-- @query 132 aggregate.slt:4071 table=aggregate_test_100 df-error
SELECT percentile_cont(-0.1) WITHIN GROUP (ORDER BY c3) FROM aggregate_test_100;

-- @query 133 aggregate.slt:4074 table=aggregate_test_100 df-error
SELECT percentile_cont(c2) WITHIN GROUP (ORDER BY c3) FROM aggregate_test_100;

-- @query 134 aggregate.slt:4077 table=aggregate_test_100 df-error
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c3) IGNORE NULLS FROM aggregate_test_100;

-- @query 135 aggregate.slt:4080 table=aggregate_test_100 df-error
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c3) RESPECT NULLS FROM aggregate_test_100;

-- @query 136 aggregate.slt:4083 table=aggregate_test_100 df-error
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c3, c2) FROM aggregate_test_100;

-- @query 137 aggregate.slt:4087 table=aggregate_test_100 df-error
SELECT percentile_cont(0.5)
WITHIN GROUP (ORDER BY c3)
OVER (ROWS BETWEEN 4 PRECEDING AND CURRENT ROW)
FROM aggregate_test_100;

-- @query 138 aggregate.slt:4094 table=aggregate_test_100
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c2) FROM aggregate_test_100;

-- @query 139 aggregate.slt:4099 table=aggregate_test_100
SELECT percentile_cont(0.0) WITHIN GROUP (ORDER BY c2) FROM aggregate_test_100;

-- @query 140 aggregate.slt:4104 table=aggregate_test_100
SELECT percentile_cont(1.0) WITHIN GROUP (ORDER BY c2) FROM aggregate_test_100;

-- @query 141 aggregate.slt:4162 table=aggregate_test_100
SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY c2) FROM aggregate_test_100;

-- @query 142 aggregate.slt:4167 table=aggregate_test_100
SELECT percentile_cont(0.75) WITHIN GROUP (ORDER BY c2) FROM aggregate_test_100;

-- @query 143 aggregate.slt:4173 table=aggregate_test_100
SELECT median(c2) FROM aggregate_test_100;

-- @query 144 aggregate.slt:4178 table=aggregate_test_100
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c2) FROM aggregate_test_100;

-- @query 145 aggregate.slt:4184 table=aggregate_test_100
SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY c3 DESC) FROM aggregate_test_100;

-- @query 146 aggregate.slt:4189 table=aggregate_test_100
SELECT percentile_cont(0.05) WITHIN GROUP (ORDER BY c3 DESC) FROM aggregate_test_100;

-- @query 147 aggregate.slt:4195 table=aggregate_test_100
SELECT c1, percentile_cont(0.5) WITHIN GROUP (ORDER BY c3) FROM aggregate_test_100 GROUP BY c1 ORDER BY c1;

-- @query 148 aggregate.slt:4204 table=aggregate_test_100
SELECT c1, percentile_cont(0.95) WITHIN GROUP (ORDER BY c3) FROM aggregate_test_100 GROUP BY c1 ORDER BY c1;

-- @query 149 aggregate.slt:4254 table=aggregate_test_100
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c7) FROM aggregate_test_100;

-- @query 150 aggregate.slt:4259 table=aggregate_test_100
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c8) FROM aggregate_test_100;

-- @query 151 aggregate.slt:4264 table=aggregate_test_100
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c11) FROM aggregate_test_100;

-- @query 152 aggregate.slt:4344 table=aggregate_test_100
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c3) FROM aggregate_test_100;

-- @query 153 aggregate.slt:4469 table=t@aggregate.slt:4465
select array_agg(a) from t where a > 2;

-- @query 154 aggregate.slt:4474 table=t@aggregate.slt:4465
select array_agg(b) from t where b > 3.1;

-- @query 155 aggregate.slt:4479 table=t@aggregate.slt:4465
select array_agg(c) from t where c > 3;

-- @query 156 aggregate.slt:4484 table=t@aggregate.slt:4465
select array_agg(c), count(1) from t where c > 3;

-- @query 157 aggregate.slt:4490 table=t@aggregate.slt:4465
select array_agg(a) from t where a > 3 group by a;

-- @query 158 aggregate.slt:4494 table=t@aggregate.slt:4465
select array_agg(a), count(1) from t where a > 3 group by a;

-- @query 159 aggregate.slt:4499 table=t@aggregate.slt:4465
select array_agg(distinct a) from t where a > 3;

-- @query 160 aggregate.slt:4504 table=t@aggregate.slt:4465
select array_agg(distinct a), count(1) from t where a > 3;

-- @query 161 aggregate.slt:4510 table=t@aggregate.slt:4465
select array_agg(distinct a) from t where a > 3 group by a;

-- @query 162 aggregate.slt:4514 table=t@aggregate.slt:4465
select array_agg(distinct a), count(1) from t where a > 3 group by a;

-- @query 163 aggregate.slt:4519 table=t@aggregate.slt:4465
select array_agg(a order by a) from t where a > 3;

-- @query 164 aggregate.slt:4524 table=t@aggregate.slt:4465
select array_agg(a order by a) from t where a > 3 group by a;

-- @query 165 aggregate.slt:4528 table=t@aggregate.slt:4465
select array_agg(a order by a), count(1) from t where a > 3 group by a;

-- @query 166 aggregate.slt:4539 table=t@aggregate.slt:4536
select array_agg(a) from t;

-- @query 167 aggregate.slt:4544 table=t@aggregate.slt:4536
select array_agg(b) from t;

-- @query 168 aggregate.slt:4549 table=t@aggregate.slt:4536
select array_agg(c) from t;

-- @query 169 aggregate.slt:4554 table=t@aggregate.slt:4536
select array_agg(distinct a), count(1) from t;

-- @query 170 aggregate.slt:4559 table=t@aggregate.slt:4536
select array_agg(distinct b), count(1) from t;

-- @query 171 aggregate.slt:4564 table=t@aggregate.slt:4536
select array_agg(distinct b), count(1) from t;

-- @query 172 aggregate.slt:4577 table=t@aggregate.slt:4574
select array_agg(c1) from t;

-- @query 173 aggregate.slt:4601 table=t@aggregate.slt:4598
select array_agg(column1) ignore nulls as c1 from t;

-- @query 174 aggregate.slt:4606 table=t@aggregate.slt:4598
select count(*), array_length(array_agg(distinct column2) ignore nulls) from t;

-- @query 175 aggregate.slt:4611 table=t@aggregate.slt:4598
select array_agg(column2 order by column1) ignore nulls from t;

-- @query 176 aggregate.slt:4616 table=t@aggregate.slt:4598
select array_agg(DISTINCT column2 order by column2) ignore nulls from t;

-- @query 177 aggregate.slt:4643 table=empty@aggregate.slt:4639
SELECT
  count(column1), -- counts should be zero, even for nulls
  sum(column1),   -- other aggregates should be null
  avg(column1),
  min(column1),
  max(column1),
  bit_and(column1),
  bit_or(column1),
  bit_xor(column1)
FROM empty;

-- @query 178 aggregate.slt:4658 table=empty@aggregate.slt:4639
SELECT
  count(column1),
  sum(column1),
  avg(column1),
  min(column1),
  max(column1),
  bit_and(column1),
  bit_or(column1),
  bit_xor(column1),
  column2
FROM empty
GROUP BY column2
ORDER BY column2;

-- @query 179 aggregate.slt:4686 table=the_nulls@aggregate.slt:4679
select * from the_nulls;

-- @query 180 aggregate.slt:4694 table=the_nulls@aggregate.slt:4679
SELECT
  count(column1), -- counts should be zero, even for nulls
  sum(column1),   -- other aggregates should be null
  avg(column1),
  min(column1),
  max(column1),
  bit_and(column1),
  bit_or(column1),
  bit_xor(column1)
FROM the_nulls;

-- @query 181 aggregate.slt:4709 table=the_nulls@aggregate.slt:4679
SELECT
  count(column1), -- counts should be zero, even for nulls
  sum(column1),   -- other aggregates should be null
  avg(column1),
  min(column1),
  max(column1),
  bit_and(column1),
  bit_or(column1),
  bit_xor(column1),
  column2
FROM the_nulls
GROUP BY column2
ORDER BY column2;

-- @query 182 aggregate.slt:4744 table=bit_aggregate_functions@aggregate.slt:4731
SELECT
  bit_and(c1),
  bit_and(c2),
  bit_and(c3),
  bit_or(c1),
  bit_or(c2),
  bit_or(c3),
  bit_xor(c1),
  bit_xor(c2),
  bit_xor(c3)
FROM bit_aggregate_functions;

-- @query 183 aggregate.slt:4760 table=bit_aggregate_functions@aggregate.slt:4731
SELECT
  bit_and(c1),
  bit_and(c2),
  bit_and(c3),
  bit_or(c1),
  bit_or(c2),
  bit_or(c3),
  bit_xor(c1),
  bit_xor(c2),
  bit_xor(c3),
  tag
FROM bit_aggregate_functions
GROUP BY tag
ORDER BY tag;

-- @query 184 aggregate.slt:4985 table=decimals@aggregate.slt:4982
SELECT MIN(value), MAX(value) FROM decimals;

-- @query 185 aggregate.slt:4999 table=decimals_batch@aggregate.slt:4996
SELECT MIN(value), MAX(value) FROM decimals_batch;

-- @query 186 aggregate.slt:5010 table=decimals_empty@aggregate.slt:5007
SELECT MIN(value), MAX(value) FROM decimals_empty;

-- @query 187 aggregate.slt:5025 table=decimals_all_nulls@aggregate.slt:5022
SELECT MIN(value), MAX(value) FROM decimals_all_nulls;

-- @query 188 aggregate.slt:5040 table=decimals_with_nulls@aggregate.slt:5037
SELECT MIN(value), MAX(value) FROM decimals_with_nulls;

-- @query 189 aggregate.slt:5054 table=decimals_error@aggregate.slt:5048
SELECT MIN(value), MAX(value) FROM decimals_error;

-- @query 190 aggregate.slt:5068 table=decimals_agg@aggregate.slt:5065
SELECT MIN(value), MAX(value) FROM decimals_agg;

-- @query 191 aggregate.slt:5083 table=integers@aggregate.slt:5080
SELECT MIN(value), MAX(value) FROM integers;

-- @query 192 aggregate.slt:5098 table=strings@aggregate.slt:5095
SELECT MIN(value), MAX(value) FROM strings;

-- @query 193 aggregate.slt:5113 table=integers_with_nulls@aggregate.slt:5110
SELECT MIN(value), MAX(value) FROM integers_with_nulls;

-- @query 194 aggregate.slt:5119 table=integers_with_nulls@aggregate.slt:5110
SELECT value, min(value) FROM integers_with_nulls GROUP BY CUBE(value);

-- @query 195 aggregate.slt:5137 table=integers_all_nulls@aggregate.slt:5134
SELECT MIN(value), MAX(value) FROM integers_all_nulls;

-- @query 196 aggregate.slt:5152 table=uintegers@aggregate.slt:5149
SELECT MIN(value), MAX(value) FROM uintegers;

-- @query 197 aggregate.slt:5167 table=floats@aggregate.slt:5164
SELECT MIN(value), MAX(value) FROM floats;

-- @query 198 aggregate.slt:5182 table=doubles@aggregate.slt:5179
SELECT MIN(value), MAX(value) FROM doubles;

-- @query 199 aggregate.slt:5197 table=dates@aggregate.slt:5194
SELECT MIN(value), MAX(value) FROM dates;

-- @query 200 aggregate.slt:5212 table=times@aggregate.slt:5209
SELECT MIN(value), MAX(value) FROM times;

-- @query 201 aggregate.slt:5227 table=time32millisecond@aggregate.slt:5224
SELECT MIN(value), MAX(value) FROM time32millisecond;

-- @query 202 aggregate.slt:5242 table=time64microsecond@aggregate.slt:5239
SELECT MIN(value), MAX(value) FROM time64microsecond;

-- @query 203 aggregate.slt:5257 table=time64nanosecond@aggregate.slt:5254
SELECT MIN(value), MAX(value) FROM time64nanosecond;

-- @query 204 aggregate.slt:5272 table=timestampmicrosecond@aggregate.slt:5269
SELECT MIN(value), MAX(value) FROM timestampmicrosecond;

-- @query 205 aggregate.slt:5363 table=max_bool@aggregate.slt:5360
SELECT MAX(value) FROM max_bool;

-- @query 206 aggregate.slt:5377 table=max_bool@aggregate.slt:5374
SELECT MAX(value) FROM max_bool;

-- @query 207 aggregate.slt:5391 table=max_bool@aggregate.slt:5388
SELECT MAX(value) FROM max_bool;

-- @query 208 aggregate.slt:5405 table=max_bool@aggregate.slt:5402
SELECT MAX(value) FROM max_bool;

-- @query 209 aggregate.slt:5420 table=min_bool@aggregate.slt:5417
SELECT MIN(value) FROM min_bool;

-- @query 210 aggregate.slt:5434 table=min_bool@aggregate.slt:5431
SELECT MIN(value) FROM min_bool;

-- @query 211 aggregate.slt:5448 table=min_bool@aggregate.slt:5445
SELECT MIN(value) FROM min_bool;

-- @query 212 aggregate.slt:5462 table=min_bool@aggregate.slt:5459
SELECT MIN(value) FROM min_bool;

-- @query 213 aggregate.slt:5499 table=strings@aggregate.slt:5483
SELECT id, MIN(value) FROM strings GROUP BY id ORDER BY id;

-- @query 214 aggregate.slt:5507 table=strings@aggregate.slt:5483
SELECT id, MAX(value) FROM strings GROUP BY id ORDER BY id;

-- @query 215 aggregate.slt:5709 table=bool_aggregate_functions@aggregate.slt:5692
SELECT bool_and(c1), bool_and(c2), bool_and(c3), bool_and(c4), bool_and(c5), bool_and(c6), bool_and(c7), bool_and(c8) FROM bool_aggregate_functions;

-- @query 216 aggregate.slt:5715 table=bool_aggregate_functions@aggregate.slt:5692
SELECT bool_and(distinct c1), bool_and(distinct c2), bool_and(distinct c3), bool_and(distinct c4), bool_and(distinct c5), bool_and(distinct c6), bool_and(distinct c7), bool_and(distinct c8) FROM bool_aggregate_functions;

-- @query 217 aggregate.slt:5721 table=bool_aggregate_functions@aggregate.slt:5692
SELECT bool_or(c1), bool_or(c2), bool_or(c3), bool_or(c4), bool_or(c5), bool_or(c6), bool_or(c7), bool_or(c8) FROM bool_aggregate_functions;

-- @query 218 aggregate.slt:5727 table=bool_aggregate_functions@aggregate.slt:5692
SELECT bool_or(distinct c1), bool_or(distinct c2), bool_or(distinct c3), bool_or(distinct c4), bool_or(distinct c5), bool_or(distinct c6), bool_or(distinct c7), bool_or(distinct c8) FROM bool_aggregate_functions;

-- @query 219 aggregate.slt:5754 table=t1@aggregate.slt:5751
select v1, bool_and(v2) from t1 group by v1 order by v1;

-- @query 220 aggregate.slt:5764 table=t1@aggregate.slt:5751
select v1, bool_or(v2) from t1 group by v1 order by v1;

-- @query 221 aggregate.slt:6304 table=d_table@aggregate.slt:43
select count(DISTINCT cast(c1 AS DECIMAL(10, 2))) from d_table;

-- @query 222 aggregate.slt:6309 table=d_table@aggregate.slt:43
select c2, count(DISTINCT cast(c1 AS DECIMAL(10, 2))) from d_table GROUP BY c2 ORDER BY c2;

-- @query 223 aggregate.slt:6329 table=test_table@aggregate.slt:6320
SELECT
  c1,
  SUM(c2) FILTER (WHERE c2 >= 20),
  SUM(c2) FILTER (WHERE c2 < 1) -- no rows pass filter, so the output should be NULL
FROM test_table GROUP BY c1;

-- @query 224 aggregate.slt:6341 table=test_table@aggregate.slt:6320
SELECT
  c1,
  AVG(c2) FILTER (WHERE c2 >= 20),
  AVG(c2) FILTER (WHERE c2 < 1)  -- no rows pass filter, so output should be null
FROM test_table GROUP BY c1;

-- @query 225 aggregate.slt:6353 table=test_table@aggregate.slt:6320
SELECT
  c1,
  SUM(c2) FILTER (WHERE c2 >= 20) AS sum_c2,
  AVG(c3) FILTER (WHERE c3 <= 70) AS avg_c3
FROM test_table GROUP BY c1;

-- @query 226 aggregate.slt:6365 table=test_table@aggregate.slt:6320
SELECT
  c1,
  COUNT(DISTINCT c2) FILTER (WHERE c2 >= 20) AS distinct_c2_count
FROM test_table GROUP BY c1;

-- @query 227 aggregate.slt:6376 table=test_table@aggregate.slt:6320
SELECT
  SUM(c2) FILTER (WHERE c2 >= 20) AS sum_c2
FROM test_table;

-- @query 228 aggregate.slt:6384 table=test_table@aggregate.slt:6320
SELECT
  COUNT(c2) FILTER (WHERE c2 >= 20) AS count_c2
FROM test_table;

-- @query 229 aggregate.slt:6434 table=test_table@aggregate.slt:6320
SELECT
  c1,
  SUM(c2) FILTER (WHERE c2 >= 20) as result,
  SUM(c2) as result_no_filter
FROM test_table GROUP BY c1;

-- @query 230 aggregate.slt:6446 table=test_table@aggregate.slt:6320
select
  sum(c1) FILTER (WHERE c2 < 30)
FROM test_table;

-- @query 231 aggregate.slt:6454 table=test_table@aggregate.slt:6320
SELECT
  SUM(c2) FILTER (WHERE c2 >= 20000000) AS sum_c2
FROM test_table;

-- @query 232 aggregate.slt:6470 table=test_decimal_table@aggregate.slt:6466
select c1, count(c2), avg(c2), sum(c2), min(c2), max(c2), count(c3), count(c4), sum(c4), avg(c4) from test_decimal_table group by c1;

-- @query 233 aggregate.slt:6478 table=test_decimal_table@aggregate.slt:6466
select c3, count(c2), avg(c2), sum(c2), min(c2), max(c2), count(c4), sum(c4) from test_decimal_table group by c3;

-- @query 234 aggregate.slt:6818 table=value_bool@aggregate.slt:6815
select min(x) from value_bool;

-- @query 235 aggregate.slt:6823 table=value_bool@aggregate.slt:6815
select max(x) from value_bool;

-- @query 236 aggregate.slt:6828 table=value_bool@aggregate.slt:6815
select min(x) from value_bool group by g order by g;

-- @query 237 aggregate.slt:6836 table=value_bool@aggregate.slt:6815
select max(x) from value_bool group by g order by g;

-- @query 238 aggregate.slt:6890 table=aggregate_test_100
SELECT DISTINCT c3 FROM aggregate_test_100 group by c3 order by c3 limit 5;

-- @query 239 aggregate.slt:6914 table=aggregate_test_100
SELECT c2, c3 FROM aggregate_test_100 group by c2, c3 order by c2, c3 limit 5 offset 4;

-- @query 240 aggregate.slt:6948 table=aggregate_test_100
SELECT DISTINCT c3 FROM aggregate_test_100 WHERE c3 between 10 and 20 group by c3 order by c3 limit 4;

-- @query 241 aggregate.slt:6998 table=aggregate_test_100
SELECT DISTINCT c3, c2 FROM aggregate_test_100 group by c3, c2 order by c3, c2 limit 3 offset 10;

-- @query 242 aggregate.slt:7022 table=aggregate_test_100
SELECT c2, c3 FROM aggregate_test_100 group by rollup(c2, c3) limit 3;

-- @query 243 aggregate.slt:7066 table=aggregate_test_100 df-error
select regr_count(*) from aggregate_test_100;

-- @query 244 aggregate.slt:7133 table=aggregate_test_100
select
    regr_slope(c12, c11),
    regr_intercept(c12, c11),
    regr_count(c12, c11),
    regr_r2(c12, c11),
    regr_avgx(c12, c11),
    regr_avgy(c12, c11),
    regr_sxx(c12, c11),
    regr_syy(c12, c11),
    regr_sxy(c12, c11)
from aggregate_test_100;

-- @query 245 aggregate.slt:7226 table=aggregate_test_100
select
    regr_slope(c12, c11),
    regr_intercept(c12, c11),
    regr_count(c12, c11),
    regr_r2(c12, c11),
    regr_avgx(c12, c11),
    regr_avgy(c12, c11),
    regr_sxx(c12, c11),
    regr_syy(c12, c11),
    regr_sxy(c12, c11)
from aggregate_test_100;

-- @query 246 aggregate.slt:7244 table=aggregate_test_100
select
    regr_slope(c12, c11),
    regr_intercept(c12, c11),
    regr_count(c12, c11),
    regr_r2(c12, c11),
    regr_avgx(c12, c11),
    regr_avgy(c12, c11),
    regr_sxx(c12, c11),
    regr_syy(c12, c11),
    regr_sxy(c12, c11)
from aggregate_test_100;

-- @query 247 aggregate.slt:7262 table=aggregate_test_100
select
    regr_slope(c12, c11),
    regr_intercept(c12, c11),
    regr_count(c12, c11),
    regr_r2(c12, c11),
    regr_avgx(c12, c11),
    regr_avgy(c12, c11),
    regr_sxx(c12, c11),
    regr_syy(c12, c11),
    regr_sxy(c12, c11)
from aggregate_test_100;

-- @query 248 aggregate.slt:7369 table=strings@aggregate.slt:7364
SELECT g, STRING_AGG(x,'|') FROM strings GROUP BY g ORDER BY g;

-- @query 249 aggregate.slt:7377 table=strings@aggregate.slt:7364
SELECT STRING_AGG(x,',') FROM strings WHERE g > 100;

-- @query 250 aggregate.slt:7382 table=strings@aggregate.slt:7364
SELECT STRING_AGG(DISTINCT x,',') FROM strings WHERE g > 100;

-- @query 251 aggregate.slt:7387 table=strings@aggregate.slt:7364
SELECT STRING_AGG(DISTINCT x,'|' ORDER BY x) FROM strings;

-- @query 252 aggregate.slt:7392 table=strings@aggregate.slt:7364 df-error
SELECT STRING_AGG(DISTINCT x,y) FROM strings;

-- @query 253 aggregate.slt:7395 table=strings@aggregate.slt:7364 df-error
SELECT STRING_AGG(DISTINCT x,'|' ORDER BY y) FROM strings;

-- @query 254 aggregate.slt:7455 table=t@aggregate.slt:7452
select string_agg(k, ',' order by k) from t;

-- @query 255 aggregate.slt:7460 table=t@aggregate.slt:7452
select string_agg(k, ',' order by k desc) from t;

-- @query 256 aggregate.slt:7465 table=t@aggregate.slt:7452
select string_agg(k, ',' order by v) from t;

-- @query 257 aggregate.slt:7470 table=t@aggregate.slt:7452
select string_agg(k, ',' order by v nulls first) from t;

-- @query 258 aggregate.slt:7475 table=t@aggregate.slt:7452
select string_agg(k, ',' order by v desc) from t;

-- @query 259 aggregate.slt:7480 table=t@aggregate.slt:7452
select string_agg(k, ',' order by v desc nulls last) from t;

-- @query 260 aggregate.slt:7485 table=t@aggregate.slt:7452
select string_agg(k, ',' order by v % 2 == 0, v) from t;

-- @query 261 aggregate.slt:7491 table=t@aggregate.slt:7452
select string_agg(k, ',' order by v % 2 == 0, v desc) from t;

-- @query 262 aggregate.slt:7497 table=t@aggregate.slt:7452
select string_agg(k, ',' order by
  case
    when k = 'a' then 3
    when k = 'b' then 0
    when k = 'c' then 2
    when k = 'd' then 1
  end)
from t;

-- @query 263 aggregate.slt:7509 table=t@aggregate.slt:7452
select string_agg(k, ',' order by
  case
    when k = 'a' then 3
    when k = 'b' then 0
    when k = 'c' then 2
    when k = 'd' then 1
  end desc)
from t;

-- @query 264 aggregate.slt:7533 table=t@aggregate.slt:7452
select string_agg(k, ',' order by v) from t;

-- @query 265 aggregate.slt:7549 table=t@aggregate.slt:7452
select string_agg(k, ',' order by v desc) from t;

-- @query 266 aggregate.slt:7567 table=t@aggregate.slt:7452
select string_agg(k, ',' order by v asc), string_agg(k, ',' order by v desc) from t;

-- @query 267 aggregate.slt:7656 table=distinct_count_string_table@aggregate.slt:7645
select count(distinct column1), count(distinct column2), count(distinct column3), count(distinct column4) from distinct_count_string_table;

-- @query 268 aggregate.slt:7662 table=distinct_count_string_table@aggregate.slt:7645
select count(distinct column1), count(distinct column2), count(distinct column3), count(distinct column4) from distinct_count_string_table group by column1;

-- @query 269 aggregate.slt:7763 table=empty@aggregate.slt:7760
SELECT MIN(col0) FROM empty WHERE col0=1;

-- @query 270 aggregate.slt:7768 table=empty@aggregate.slt:7760
SELECT MAX(col0) FROM empty WHERE col0=1;

-- @query 271 aggregate.slt:7811 table=t@aggregate.slt:7808
SELECT MIN(col0) FROM t WHERE col0=1;

-- @query 272 aggregate.slt:7816 table=t@aggregate.slt:7808
SELECT MAX(col0) FROM t WHERE col0=1;

-- @query 273 aggregate.slt:7830 table=t@aggregate.slt:7826
SELECT 0 as "t.a" FROM t GROUP BY t.a;

-- @query 274 aggregate.slt:7838 table=t@aggregate.slt:7826
SELECT 0 AS "t.a" FROM t HAVING MAX(t.a) = 0;

-- @query 275 aggregate.slt:7843 table=t@aggregate.slt:7826
SELECT CAST(a AS INT) FROM t GROUP BY t.a;

-- @query 276 aggregate.slt:7857 table=t@aggregate.slt:7854
SELECT FIRST_VALUE(column1) FROM t;

-- @query 277 aggregate.slt:7862 table=t@aggregate.slt:7854
SELECT FIRST_VALUE(column1) RESPECT NULLS FROM t;

-- @query 278 aggregate.slt:7867 table=t@aggregate.slt:7854
SELECT FIRST_VALUE(column1) IGNORE NULLS FROM t;

-- @query 279 aggregate.slt:7879 table=t@aggregate.slt:7876
SELECT column1 FROM t ORDER BY column2;

-- @query 280 aggregate.slt:7887 table=t@aggregate.slt:7876
SELECT FIRST_VALUE(column1 ORDER BY column2) FROM t;

-- @query 281 aggregate.slt:7892 table=t@aggregate.slt:7876
SELECT FIRST_VALUE(column1 ORDER BY column2) RESPECT NULLS FROM t;

-- @query 282 aggregate.slt:7897 table=t@aggregate.slt:7876
SELECT FIRST_VALUE(column1 ORDER BY column2) IGNORE NULLS FROM t;

-- @query 283 aggregate.slt:7909 table=t@aggregate.slt:7906
SELECT LAST_VALUE(column1) FROM t;

-- @query 284 aggregate.slt:7914 table=t@aggregate.slt:7906
SELECT LAST_VALUE(column1) RESPECT NULLS FROM t;

-- @query 285 aggregate.slt:7919 table=t@aggregate.slt:7906
SELECT LAST_VALUE(column1) IGNORE NULLS FROM t;

-- @query 286 aggregate.slt:7931 table=t@aggregate.slt:7928
SELECT column1 FROM t ORDER BY column2 DESC;

-- @query 287 aggregate.slt:7939 table=t@aggregate.slt:7928
SELECT LAST_VALUE(column1 ORDER BY column2 DESC) FROM t;

-- @query 288 aggregate.slt:7944 table=t@aggregate.slt:7928
SELECT LAST_VALUE(column1 ORDER BY column2 DESC) RESPECT NULLS FROM t;

-- @query 289 aggregate.slt:7949 table=t@aggregate.slt:7928
SELECT LAST_VALUE(column1 ORDER BY column2 DESC) IGNORE NULLS FROM t;

-- @query 290 aggregate.slt:7964 table=example@aggregate.slt:7961
SELECT
    sum(CASE WHEN data is NULL THEN NULL ELSE data+1 END) as then_null,
    sum(CASE WHEN data is NULL THEN data+1 ELSE NULL END) as else_null
FROM example;

-- @query 291 aggregate.slt:7972 table=example@aggregate.slt:7961
SELECT
   CASE data WHEN 1 THEN NULL WHEN 2 THEN 3.3 ELSE NULL END as case_null
FROM example;

-- @query 292 aggregate.slt:8032 table=employee_csv@aggregate.slt:8029
select state, sum(salary) total_salary from employee_csv group by state;

-- @query 293 aggregate.slt:8049 table=employee_csv@aggregate.slt:8029 df-error
select state, sum(salary) as state from employee_csv group by state;

-- @query 294 aggregate.slt:8082 table=having_test@aggregate.slt:8075
select * from having_test group by v1, v2 having max(v1) = 3;

-- @query 295 aggregate.slt:8103 table=having_test@aggregate.slt:8075 df-error
select * from having_test having max(v1) = 3;

-- @query 296 aggregate.slt:8106 table=having_test@aggregate.slt:8075
select max(v1) from having_test having max(v1) = 3;

-- @query 297 aggregate.slt:8111 table=having_test@aggregate.slt:8075
select max(v1), * exclude (v1, v2) from having_test having max(v1) = 3;

-- @query 298 aggregate.slt:8117 table=having_test@aggregate.slt:8075
select max(v1), * replace ('v1' as v3) from having_test group by v1, v2 having max(v1) = 3;

-- @query 299 aggregate.slt:8122 table=having_test@aggregate.slt:8075
select max(v1), t.* from having_test t group by v1, v2 having max(v1) = 3;

-- @query 300 aggregate.slt:8137 table=having_test@aggregate.slt:8075
select now() from having_test having max(v1) = 4;

-- @query 301 aggregate.slt:8142 table=having_test@aggregate.slt:8075
select 0 from having_test having max(v1) = 4;

-- @query 302 aggregate.slt:8147 table=having_test@aggregate.slt:8075 df-error
select * from having_test group by v1 having max(v1) = 3;

-- @query 303 aggregate.slt:8188 table=t1@aggregate.slt:8184 df-error
SELECT v1 FROM t1 WHERE ((count(v1) % 1) << 1) > 0;

-- @query 304 aggregate.slt:8192 table=t1@aggregate.slt:8184
SELECT AVG(v1) FROM t1 GROUP BY false HAVING false;

-- @query 305 aggregate.slt:8196 table=t1@aggregate.slt:8184
SELECT AVG(v1) FROM t1 GROUP BY false;

-- @query 306 aggregate.slt:8203 table=t1@aggregate.slt:8200
SELECT AVG(v1) FROM t1 GROUP BY false;

-- @query 307 aggregate.slt:8301 table=t@aggregate.slt:8298
select count(null::bigint) from t;

-- @query 308 aggregate.slt:8324 table=t@aggregate.slt:8321
select count() from t;

-- @query 309 aggregate.slt:8329 table=t@aggregate.slt:8321
select count(1), count(2), count(1) * count(2) from t;

-- @query 310 aggregate.slt:8334 table=t@aggregate.slt:8321
select count(1), count(*), count(1) * count(*) from t;

-- @query 311 aggregate.slt:8339 table=t@aggregate.slt:8321
select count(*), count(*) * count(*) from t;

-- @query 312 aggregate.slt:8344 table=t@aggregate.slt:8321
select count(1), count(1) * count(1) from t;

-- @query 313 aggregate.slt:8349 table=t@aggregate.slt:8321
select count(2), count(2) * count(2) from t;

-- @query 314 aggregate.slt:8354 table=t@aggregate.slt:8321
select count(), count() * count() from t;

-- @query 315 aggregate.slt:8360 table=t@aggregate.slt:8321 df-error
select count(1), count(1) from t;

-- @query 316 aggregate.slt:8368 table=t@aggregate.slt:8321 df-error
select count(), count() from t;

-- @query 317 aggregate.slt:8375 table=t@aggregate.slt:8321
select count(1), count(2) from t;

-- @query 318 aggregate.slt:8390 table=t@aggregate.slt:8321
select count(1), count() from t;

-- @query 319 aggregate.slt:8407 table=t@aggregate.slt:8321
select count(1), count(*) from t;

-- @query 320 aggregate.slt:8424 table=t@aggregate.slt:8321
select count(), count(*) from t;

-- @query 321 aggregate.slt:8900 table=string_agg_window_test@aggregate.slt:8889
SELECT
    id,
    grp,
    string_agg(val, ',') OVER (
        PARTITION BY grp
        ORDER BY id
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS cumulative_string
FROM string_agg_window_test
ORDER BY grp, id;

-- @query 322 aggregate.slt:9039 table=stream_test@aggregate.slt:8927
SELECT
  g,
  ARRAY_AGG(x ORDER BY x),
  ARRAY_AGG(DISTINCT x ORDER BY x),
  FIRST_VALUE(x ORDER BY x),
  LAST_VALUE(x ORDER BY x),
  NTH_VALUE(x, 1 ORDER BY x)
FROM (SELECT * FROM stream_test ORDER BY g LIMIT 10000)
GROUP BY g
ORDER BY g;

-- @query 323 aggregate.slt:9076 table=stream_test@aggregate.slt:8927
SELECT
  g,
  ARRAY_AGG(s ORDER BY s),
  STRING_AGG(s, '|' ORDER BY s),
  STRING_AGG(DISTINCT s, '|' ORDER BY s)
FROM (SELECT * FROM stream_test ORDER BY g LIMIT 10000)
GROUP BY g
ORDER BY g;

-- @query 324 aggregate_skip_partial.slt:73 table=aggregate_test_100
SELECT c5, c1,
       COUNT(),
       COUNT(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END),
       COUNT() FILTER (WHERE c1 = 'b'),
       COUNT(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END) FILTER (WHERE c1 = 'b')
FROM aggregate_test_100
GROUP BY 1, 2 ORDER BY 1 LIMIT 5;

-- @query 325 aggregate_skip_partial.slt:88 table=aggregate_test_100
SELECT c5, c1,
       MIN(c5),
       MIN(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END),
       MIN(c5) FILTER (WHERE c1 = 'b'),
       MIN(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END) FILTER (WHERE c1 = 'b')
FROM aggregate_test_100
GROUP BY 1, 2 ORDER BY 1 LIMIT 5;

-- @query 326 aggregate_skip_partial.slt:103 table=aggregate_test_100
SELECT c5, c1,
       MAX(c5),
       MAX(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END),
       MAX(c5) FILTER (WHERE c1 = 'b'),
       MAX(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END) FILTER (WHERE c1 = 'b')
FROM aggregate_test_100
GROUP BY 1, 2 ORDER BY 1 LIMIT 5;

-- @query 327 aggregate_skip_partial.slt:118 table=aggregate_test_100
SELECT c5, c1,
       SUM(c5),
       SUM(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END),
       SUM(c5) FILTER (WHERE c1 = 'b'),
       SUM(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END) FILTER (WHERE c1 = 'b')
FROM aggregate_test_100
GROUP BY 1, 2 ORDER BY 1 LIMIT 5;

-- @query 328 aggregate_skip_partial.slt:133 table=aggregate_test_100
SELECT c5, c1,
       MEDIAN(c5),
       MEDIAN(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END),
       MEDIAN(c5) FILTER (WHERE c1 = 'b'),
       MEDIAN(CASE WHEN c1 = 'a' THEN c5 ELSE NULL END) FILTER (WHERE c1 = 'b')
FROM aggregate_test_100
GROUP BY 1, 2 ORDER BY 1 LIMIT 5;

-- @query 329 aggregate_skip_partial.slt:178 table=aggregate_test_100
SELECT c5, c1,
       ARRAY_AGG(c3),
       ARRAY_AGG(CASE WHEN c1 = 'a' THEN c3 ELSE NULL END),
       ARRAY_AGG(c3) FILTER (WHERE c1 = 'b'),
       ARRAY_AGG(CASE WHEN c1 = 'a' THEN c3 ELSE NULL END) FILTER (WHERE c1 = 'b')
FROM aggregate_test_100
GROUP BY 1, 2 ORDER BY 1 LIMIT 5;

-- @query 330 aggregate_skip_partial.slt:194 table=aggregate_test_100_bool@aggregate_skip_partial.slt:51
select v1, bool_or(v2), bool_and(v2), bool_or(v3), bool_and(v3)
from aggregate_test_100_bool
group by v1;

-- @query 331 aggregate_skip_partial.slt:205 table=aggregate_test_100_bool@aggregate_skip_partial.slt:51
select v1,
      bool_or(v2) FILTER (WHERE v1 = 'a' OR v1 = 'c' OR v1 = 'e'),
      bool_or(v2) FILTER (WHERE v2 = false),
      bool_or(v2) FILTER (WHERE v2 = NULL)
from aggregate_test_100_bool
group by v1;

-- @query 332 aggregate_skip_partial.slt:268 table=aggregate_test_100
SELECT c2, count(c1), count(c5), count(c11) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 333 aggregate_skip_partial.slt:278 table=aggregate_test_100
SELECT c2,
       array_sort(array_agg(c5)),
       array_sort(array_agg(c3) FILTER (WHERE c3 > 0))
FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 334 aggregate_skip_partial.slt:291 table=aggregate_test_100
SELECT c2, min(c5), max(c5), min(c11), max(c11) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 335 aggregate_skip_partial.slt:301 table=aggregate_test_100
SELECT c2, sum(c5), sum(c11) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 336 aggregate_skip_partial.slt:311 table=aggregate_test_100
SELECT c2, median(c5), median(c11) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 337 aggregate_skip_partial.slt:362 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2, count(c3), count(c11) FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 338 aggregate_skip_partial.slt:372 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2, min(c3), max(c3), min(c11), max(c11) FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 339 aggregate_skip_partial.slt:382 table=aggregate_test_100
SELECT c2, sum(c3), sum(c11) FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 340 aggregate_skip_partial.slt:392 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2, median(c3), median(c11) FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 341 aggregate_skip_partial.slt:422 table=aggregate_test_100
SELECT
  c1,
  avg(c2),
  avg(c11)
FROM aggregate_test_100 GROUP BY c1 ORDER BY c1;

-- @query 342 aggregate_skip_partial.slt:435 table=aggregate_test_100_bool@aggregate_skip_partial.slt:51
select v1,
      bool_or(v2) FILTER (WHERE v1 = 'a' OR v1 = 'c' OR v1 = 'e'),
      bool_or(v2) FILTER (WHERE v2 = false),
      bool_or(v2) FILTER (WHERE v2 = NULL)
from aggregate_test_100_bool
group by v1;

-- @query 343 aggregate_skip_partial.slt:450 table=aggregate_test_100
SELECT
  c2,
  count(c3) FILTER (WHERE c3 > 0),
  count(c3) FILTER (WHERE c11 > 10)
FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 344 aggregate_skip_partial.slt:464 table=aggregate_test_100
SELECT
  c2,
  min(c3) FILTER (WHERE c3 > 0),
  max(c3) FILTER (WHERE c3 < 0)
FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 345 aggregate_skip_partial.slt:478 table=aggregate_test_100
SELECT
  c2,
  sum(c3) FILTER (WHERE c1 != 'e' AND c3 > 0)
FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 346 aggregate_skip_partial.slt:505 table=aggregate_test_100
SELECT
  c2,
  median(c3) FILTER (WHERE c3 > 0),
  median(c3) FILTER (WHERE c3 < 0)
FROM aggregate_test_100 GROUP BY c2 ORDER BY c2;

-- @query 347 aggregate_skip_partial.slt:533 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       COUNT(c3) FILTER (WHERE c5 > 0),
       COUNT(c11) FILTER(WHERE c5 > 0)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 348 aggregate_skip_partial.slt:546 table=aggregate_test_100
SELECT
  c1,
  avg(c2) FILTER (WHERE c2 != 5),
  avg(c11) FILTER (WHERE c2 != 5)
FROM aggregate_test_100 GROUP BY c1 ORDER BY c1;

-- @query 349 aggregate_skip_partial.slt:560 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       COUNT(c3) FILTER (WHERE c11 > 0.5),
       COUNT(c11) FILTER(WHERE c3 > 0)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 350 aggregate_skip_partial.slt:573 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       MIN(c3) FILTER (WHERE c5 > 0),
       MAX(c3) FILTER (WHERE c5 > 0),
       MIN(c11) FILTER (WHERE c5 < 0),
       MAX(c11) FILTER (WHERE c5 < 0)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 351 aggregate_skip_partial.slt:588 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       MIN(c3) FILTER (WHERE c11 > 0.5),
       MAX(c3) FILTER (WHERE c11 > 0.5)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 352 aggregate_skip_partial.slt:601 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       SUM(c3) FILTER (WHERE c5 > 0),
       SUM(c3) FILTER (WHERE c11 < 0.5),
       SUM(c11) FILTER (WHERE c5 < 0),
       SUM(c11) FILTER (WHERE c3 > 0)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 353 aggregate_skip_partial.slt:640 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       var_samp(c11) FILTER (WHERE c3 > 0),
       stddev_samp(c11) FILTER (WHERE c3 > 0),
       stddev_pop(c11) FILTER (WHERE c3 > 0)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 354 aggregate_skip_partial.slt:654 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       corr(c3, c11) FILTER (WHERE c5 > 0)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 355 aggregate_skip_partial.slt:666 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       count(distinct c3) FILTER (WHERE c11 > 0.5)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 356 aggregate_skip_partial.slt:678 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       median(c3) FILTER (WHERE c5 > 0),
       median(c11) FILTER (WHERE c5 < 0)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 357 aggregate_skip_partial.slt:691 table=aggregate_test_100_null@aggregate_skip_partial.slt:258
SELECT c2,
       median(c3) FILTER (WHERE c11 > 0.5)
FROM aggregate_test_100_null GROUP BY c2 ORDER BY c2;

-- @query 358 aggregate_skip_partial.slt:796 table=bool_aggregate_functions@aggregate_skip_partial.slt:780
SELECT bool_and(c1), bool_and(c2), bool_and(c3), bool_and(c4), bool_and(c5), bool_and(c6), bool_and(c7), bool_and(c8) FROM bool_aggregate_functions;

-- @query 359 aggregate_skip_partial.slt:804 table=bool_aggregate_functions@aggregate_skip_partial.slt:780
SELECT bool_and(c1), bool_and(c2), bool_and(c3), bool_and(c4), bool_and(c5), bool_and(c6), bool_and(c7), bool_and(c8) FROM bool_aggregate_functions;

-- @query 360 aggregate_skip_partial.slt:850 table=agg_order_by_t@aggregate_skip_partial.slt:841
SELECT g, median(v) FROM agg_order_by_t GROUP BY g ORDER BY g;

-- @query 361 aggregate_skip_partial.slt:856 table=agg_order_by_t@aggregate_skip_partial.slt:841
SELECT g, median(v ORDER BY i) FROM agg_order_by_t GROUP BY g ORDER BY g;

-- @query 362 aggregate_skip_partial.slt:868 table=agg_order_by_t@aggregate_skip_partial.slt:841
SELECT g, corr(v, i ORDER BY i) FROM agg_order_by_t GROUP BY g ORDER BY g;

-- @query 363 distinct_on.slt:40 table=aggregate_test_100
SELECT DISTINCT ON (c1) c1, c2 FROM aggregate_test_100 ORDER BY c1, c3, c9;

-- @query 364 distinct_on.slt:50 table=aggregate_test_100
SELECT DISTINCT ON (c1) c1, c2 FROM aggregate_test_100 ORDER BY c1, c3 DESC, c9;

-- @query 365 distinct_on.slt:60 table=aggregate_test_100
SELECT DISTINCT ON (c1) c1, c2 FROM aggregate_test_100 ORDER BY c1 DESC, c3, c9;

-- @query 366 distinct_on.slt:70 table=aggregate_test_100
SELECT DISTINCT ON (c1) c1, c2 FROM aggregate_test_100 ORDER BY c1 DESC, c3 DESC LIMIT 3;

-- @query 367 distinct_on.slt:78 table=aggregate_test_100
SELECT DISTINCT ON (c1) c2 FROM aggregate_test_100 ORDER BY c1, c3;

-- @query 368 distinct_on.slt:108 table=aggregate_test_100 df-error
SELECT DISTINCT ON (c2 % 2 = 0) c2, c3 - 100 FROM aggregate_test_100 ORDER BY c2, c3;

-- @query 369 distinct_on.slt:112 table=aggregate_test_100 df-error
SELECT DISTINCT ON () c1, c2 FROM aggregate_test_100 ORDER BY c1, c2;

-- @query 370 distinct_on.slt:116 table=aggregate_test_100
SELECT DISTINCT ON (c2 % 2 = 0) c2, c3 - 100 FROM aggregate_test_100 ORDER BY c2 % 2 = 0, c3 DESC;

-- @query 371 distinct_on.slt:123 table=aggregate_test_100
SELECT DISTINCT ON (chr(ascii(c1) + 3), c2 % 2) chr(ascii(upper(c1)) + 3), c2 % 2, c3 > 80 AND c2 % 2 = 1
FROM aggregate_test_100
WHERE c1 IN ('a', 'b')
ORDER BY chr(ascii(c1) + 3), c2 % 2, c3 DESC;

-- @query 372 distinct_on.slt:135 table=aggregate_test_100
WITH t1 AS (SELECT * FROM aggregate_test_100),
t2 AS (SELECT * FROM aggregate_test_100)
SELECT DISTINCT ON (t1.c1, t2.c2) t2.c3, t1.c4
FROM t1 INNER JOIN t2 ON t1.c13 = t2.c13
ORDER BY t1.c1, t2.c2, t2.c5
LIMIT 3;

-- @query 373 distinct_on.slt:148 table=aggregate_test_100
SELECT DISTINCT ON (c1) * FROM aggregate_test_100 ORDER BY c1 LIMIT 3;

-- @query 374 distinct_on.slt:156 table=aggregate_test_100 df-error
SELECT DISTINCT ON (*) c1 FROM aggregate_test_100 ORDER BY c1 LIMIT 3;

-- @query 375 limit.slt:43 table=aggregate_test_100
SELECT c1 FROM aggregate_test_100 LIMIT 2;

-- @query 376 limit.slt:50 table=aggregate_test_100
SELECT c2 FROM aggregate_test_100 LIMIT 200;

-- @query 377 limit.slt:155 table=aggregate_test_100
SELECT c2 FROM aggregate_test_100 LIMIT 100;

-- @query 378 limit.slt:260 table=aggregate_test_100
SELECT c1 FROM aggregate_test_100 LIMIT 0;

-- @query 379 limit.slt:265 table=aggregate_test_100
SELECT c1 FROM aggregate_test_100 OFFSET 99;

-- @query 380 limit.slt:271 table=aggregate_test_100
SELECT c1 FROM aggregate_test_100 OFFSET 100;

-- @query 381 limit.slt:276 table=aggregate_test_100
SELECT c1 FROM aggregate_test_100 OFFSET 101;

-- @query 382 limit.slt:281 table=aggregate_test_100
SELECT c1 FROM aggregate_test_100 OFFSET 2 LIMIT 2;

-- @query 383 limit.slt:288 table=aggregate_test_100
SELECT c1 FROM aggregate_test_100 LIMIT 1 OFFSET 100;

-- @query 384 limit.slt:293 table=aggregate_test_100
SELECT c1 FROM aggregate_test_100 LIMIT 1 OFFSET 101;

-- @query 385 limit.slt:318 table=t1@limit.slt:301
SELECT COUNT(*) FROM (SELECT a FROM t1 LIMIT 3 OFFSET 11);

-- @query 386 limit.slt:337 table=t1@limit.slt:301
SELECT COUNT(*) FROM (SELECT a FROM t1 LIMIT 3 OFFSET 8);

-- @query 387 limit.slt:356 table=t1@limit.slt:301
SELECT COUNT(*) FROM (SELECT a FROM t1 LIMIT 3 OFFSET 8);

-- @query 388 limit.slt:381 table=t1@limit.slt:301
SELECT COUNT(*) FROM (SELECT a FROM t1 WHERE a > 3 LIMIT 3 OFFSET 6);

-- @query 389 limit.slt:460 table=t15@limit.slt:455
SELECT COUNT(*) FROM t15;

-- @query 390 limit.slt:465 table=t15@limit.slt:455
SELECT COUNT(*) FROM (SELECT i FROM t15 LIMIT 1);

-- @query 391 limit.slt:470 table=t15@limit.slt:455
SELECT COUNT(*) FROM (SELECT i FROM t15 LIMIT 2);

-- @query 392 limit.slt:475 table=t15@limit.slt:455
SELECT COUNT(*) FROM (SELECT i FROM t15 LIMIT 3);

-- @query 393 limit.slt:480 table=t15@limit.slt:455
SELECT COUNT(*) FROM (SELECT i FROM t15 LIMIT 4);

-- @query 394 limit.slt:485 table=t15@limit.slt:455
SELECT COUNT(*) FROM (SELECT i FROM t15 LIMIT 5);

-- @query 395 limit.slt:490 table=t15@limit.slt:455
SELECT COUNT(*) FROM (SELECT i FROM t15 LIMIT 6);

-- @query 396 limit.slt:495 table=t15@limit.slt:455
SELECT COUNT(*) FROM (SELECT i FROM t15 LIMIT 7);

-- @query 397 limit.slt:500 table=t15@limit.slt:455
SELECT COUNT(*) FROM (SELECT i FROM t15 LIMIT 8);

-- @query 398 limit.slt:505 table=t15@limit.slt:455
SELECT COUNT(*) FROM (SELECT i FROM t15 LIMIT 9);

-- @query 399 limit.slt:718 table=testsubquerylimit@limit.slt:715
select * from testSubQueryLimit as t1 join (select * from testSubQueryLimit limit 1) limit 10;

-- @query 400 limit.slt:744 table=testsubquerylimit@limit.slt:715
select * from testSubQueryLimit as t1 join (select * from testSubQueryLimit limit 10) limit 2;

-- @query 401 order.slt:57 table=aggregate_test_100
SELECT MIN(c12) FROM aggregate_test_100 ORDER BY MIN(c12);

-- @query 402 order.slt:263 table=aggregate_test_100
SELECT c2, c3 FROM aggregate_test_100 ORDER BY c2, c3, c2;

-- @query 403 order.slt:380 table=foo@order.slt:377
select * from foo;

-- @query 404 order.slt:387 table=foo@order.slt:377
select column1 from foo order by column2;

-- @query 405 order.slt:394 table=foo@order.slt:377
select column1 from foo order by column1 + column2;

-- @query 406 order.slt:401 table=foo@order.slt:377
select column1 from foo order by column1 + column2;

-- @query 407 order.slt:408 table=foo@order.slt:377
select column1 + column2 from foo group by column1, column2;

-- @query 408 order.slt:415 table=foo@order.slt:377
select column1 + column2 from foo group by column1, column2 ORDER BY column2 desc;

-- @query 409 order.slt:423 table=foo@order.slt:377
select column1 from foo order by log(column2);

-- @query 410 order.slt:431 table=foo@order.slt:377
select column1 from foo order by column2 % 2, column2;

-- @query 411 order.slt:790 table=t1@order.slt:778
SELECT * FROM t1 ORDER BY id DESC, id, name, id ASC;

-- @query 412 order.slt:809 table=t1@order.slt:778
SELECT * FROM t1 ORDER BY id ASC, id, name, id DESC;

-- @query 413 order.slt:918 table=foo@order.slt:915
select column1, column2 from foo ORDER BY column1, column2;

-- @query 414 order.slt:930 table=foo@order.slt:915
select column1, column2 from foo ORDER BY column1 desc, column2;

-- @query 415 order.slt:942 table=foo@order.slt:915
select column1, column2 from foo ORDER BY column1, column2 desc;

-- @query 416 order.slt:954 table=foo@order.slt:915
select column1, column2 from foo ORDER BY column1 desc, column2 desc;

-- @query 417 order.slt:966 table=foo@order.slt:915
select column2, column1 from foo ORDER BY column2, column1;

-- @query 418 order.slt:978 table=foo@order.slt:915
select column2, column1 from foo ORDER BY column2 desc, column1;

-- @query 419 order.slt:990 table=foo@order.slt:915
select column2, column1 from foo ORDER BY column2, column1 desc;

-- @query 420 order.slt:1002 table=foo@order.slt:915
select column2, column1 from foo ORDER BY column2 desc, column1 desc;

-- @query 421 order.slt:1016 table=foo@order.slt:915
SELECT
   SUM(column1)
FROM foo
HAVING SUM(column1) > 0
ORDER BY SUM(column1);

-- @query 422 order.slt:1026 table=foo@order.slt:915
SELECT SUM(column1) 
  FROM foo 
GROUP BY column2 
ORDER BY SUM(column1);

-- @query 423 order.slt:1041 table=foo@order.slt:915
SELECT 
  SUM(column1) 
FROM foo 
GROUP BY column2 
HAVING SUM(column1) < 3 
ORDER BY SUM(column1);

-- @query 424 order.slt:1055 table=foo@order.slt:915
SELECT SUM(column1) FROM foo ORDER BY SUM(column1);

-- @query 425 order.slt:1061 table=foo@order.slt:915 df-error
SELECT column2 FROM foo ORDER BY SUM(column1);

-- @query 426 order.slt:1068 table=ambiguity_test@order.slt:1064
select a as b, b as c2 from ambiguity_test order by b;

-- @query 427 order.slt:1088 table=t@order.slt:1084
select * from (select c, a, NULL::int as a0, b from t order by a, c) t1
union all
select * from (select c, NULL::int as a, a0, b from t order by a0, c) t2
order by c, a, a0, b
limit 2;

-- @query 428 order.slt:1098 table=t@order.slt:1084
select * from (select c, a, NULL::int as a0 from t order by a, c) t1
union all
select * from (select c, NULL::int as a, a0 from t order by a0, c) t2
order by c, a, a0
limit 2;

-- @query 429 order.slt:1498 table=addresses@order.slt:1487
SELECT * FROM addresses ORDER BY ALL;

-- @query 430 order.slt:1506 table=addresses@order.slt:1487
SELECT * FROM addresses ORDER BY ALL DESC;

-- @query 431 order.slt:1514 table=addresses@order.slt:1487
SELECT address, zip FROM addresses ORDER BY ALL;

-- @query 432 predicates.slt:50 table=aggregate_test_100
SELECT c1, c12 FROM aggregate_test_100 WHERE c12 > 0.376 AND c12 < 0.4;

-- @query 433 predicates.slt:57 table=aggregate_test_100
SELECT c1, c4 FROM aggregate_test_100 WHERE c3 < -55 AND -c4 > 30000;

-- @query 434 predicates.slt:64 table=aggregate_test_100
SELECT COUNT(1) FROM aggregate_test_100 WHERE NOT(c1 != 'a');

-- @query 435 predicates.slt:70 table=aggregate_test_100
SELECT COUNT(1) FROM aggregate_test_100 WHERE c1 IS NOT NULL;

-- @query 436 predicates.slt:76 table=aggregate_test_100
SELECT COUNT(1) FROM aggregate_test_100 WHERE c1 IS NULL;

-- @query 437 predicates.slt:82 table=aggregate_test_100
select c7, c8 from aggregate_test_100 where c7 >= -2 and c7 < 10;

-- @query 438 predicates.slt:91 table=aggregate_test_100
select c7, c8 from aggregate_test_100 where c7 >= -2.9 and c7 < 10;

-- @query 439 predicates.slt:101 table=aggregate_test_100
SELECT COUNT(c1) FROM aggregate_test_100 WHERE c13 LIKE '%FB%';

-- @query 440 predicates.slt:107 table=aggregate_test_100
SELECT c4 FROM aggregate_test_100 WHERE c12 BETWEEN 0.995 AND 1.0;

-- @query 441 predicates.slt:113 table=aggregate_test_100
SELECT c4 FROM aggregate_test_100 WHERE c12 NOT BETWEEN 0 AND 0.995;

-- @query 442 predicates.slt:119 table=aggregate_test_100
SELECT count(*) FROM aggregate_test_100 WHERE c7 in ('25','155','204','77','208','67','139','191','26','7','202','113','129','197','249','146','129','220','154','163','220','19','71','243','150','231','196','170','99','255');

-- @query 443 predicates.slt:143 table=test@predicates.slt:139
SELECT * FROM test WHERE column1 LIKE '%a%';

-- @query 444 predicates.slt:150 table=test@predicates.slt:139
SELECT * FROM test WHERE column1 LIKE '%a%';

-- @query 445 predicates.slt:157 table=test@predicates.slt:139
SELECT * FROM test WHERE column1 IN ('Bar');

-- @query 446 predicates.slt:161 table=test@predicates.slt:139
SELECT * FROM test WHERE column1 IN ('foo');

-- @query 447 predicates.slt:166 table=test@predicates.slt:139
SELECT * FROM test WHERE column1 IN ('bar', 'foo');

-- @query 448 predicates.slt:172 table=test@predicates.slt:139
SELECT * FROM test WHERE column1 IN ('Bar', 'foo');

-- @query 449 predicates.slt:177 table=test@predicates.slt:139
SELECT * FROM test WHERE column1 IN ('foo', 'Bar', 'fazzz');

-- @query 450 predicates.slt:185 table=test@predicates.slt:139
SELECT * FROM test WHERE column1 IN ('foo', 'Bar', 'fazzz');

-- @query 451 predicates.slt:198 table=test@predicates.slt:194 df-error
SELECT * FROM test WHERE 12 ~ 'z';

-- @query 452 predicates.slt:202 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 ~ 'z';

-- @query 453 predicates.slt:207 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 ~ '^Bazzz$';

-- @query 454 predicates.slt:212 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 ~ '^(foo|Bazzz)$';

-- @query 455 predicates.slt:294 table=test_regex_utf8view@predicates.slt:218
SELECT * FROM test_regex_utf8view WHERE s ~ '^Bazzz$';

-- @query 456 predicates.slt:299 table=test_regex_utf8view@predicates.slt:218
SELECT * FROM test_regex_utf8view WHERE s ~ '^(foo|Bazzz)$';

-- @query 457 predicates.slt:307 table=test_regex_utf8view@predicates.slt:218
SELECT * FROM test_regex_utf8view WHERE s ~* '^bazzz$';

-- @query 458 predicates.slt:313 table=test_regex_utf8view@predicates.slt:218
SELECT * FROM test_regex_utf8view WHERE s ~* '^(foo|bazzz)$';

-- @query 459 predicates.slt:319 table=test_regex_utf8view@predicates.slt:218
SELECT * FROM test_regex_utf8view WHERE s !~ '^Bazzz$';

-- @query 460 predicates.slt:324 table=test_regex_utf8view@predicates.slt:218
SELECT * FROM test_regex_utf8view WHERE s !~* '^bazzz$';

-- @query 461 predicates.slt:330 table=test_regex_utf8view@predicates.slt:218
SELECT * FROM test_regex_utf8view WHERE s !~ '^(foo|Bazzz)$';

-- @query 462 predicates.slt:334 table=test_regex_utf8view@predicates.slt:218
SELECT * FROM test_regex_utf8view WHERE s !~* '^(foo|bazzz)$';

-- @query 463 predicates.slt:341 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 ~* 'z';

-- @query 464 predicates.slt:347 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 ~* '^barrr$';

-- @query 465 predicates.slt:352 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 ~* '^(barrr|bazzz)$';

-- @query 466 predicates.slt:358 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 !~ '^Bazzz$';

-- @query 467 predicates.slt:365 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 !~* '^barrr$';

-- @query 468 predicates.slt:372 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 !~ 'z';

-- @query 469 predicates.slt:379 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 !~* 'z';

-- @query 470 predicates.slt:385 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 ~~ '__z%';

-- @query 471 predicates.slt:390 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 ~~* '__z%';

-- @query 472 predicates.slt:396 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 !~~ '__z%';

-- @query 473 predicates.slt:403 table=test@predicates.slt:194
SELECT * FROM test WHERE column1 !~~* '__z%';

-- @query 474 predicates.slt:416 table=test@predicates.slt:412
SELECT * FROM test WHERE column1 IN ('Bar');

-- @query 475 predicates.slt:420 table=test@predicates.slt:412
SELECT * FROM test WHERE column1 IN ('foo');

-- @query 476 predicates.slt:425 table=test@predicates.slt:412
SELECT * FROM test WHERE column1 IN ('bar', 'foo');

-- @query 477 predicates.slt:431 table=test@predicates.slt:412
SELECT * FROM test WHERE column1 IN ('Bar', 'foo');

-- @query 478 predicates.slt:436 table=test@predicates.slt:412
SELECT * FROM test WHERE column1 IN ('foo', 'Bar', 'fazzz');

-- @query 479 predicates.slt:452 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 IN (0.0, -1.2);

-- @query 480 predicates.slt:456 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 IN (0.0, 1.2);

-- @query 481 predicates.slt:461 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 IN (2.1, 1.2);

-- @query 482 predicates.slt:467 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 IN (0.0, 1.2, NULL);

-- @query 483 predicates.slt:472 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 IN (0.0, -1.2, NULL);

-- @query 484 predicates.slt:476 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 IN (0.0, 1.2, 'NaN'::double, '-NaN'::double);

-- @query 485 predicates.slt:483 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 IN (column3, column4, column5, column6);

-- @query 486 predicates.slt:489 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 IN (column3, column4, column5, column6, 2.1, NULL, '-NaN'::double);

-- @query 487 predicates.slt:497 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 NOT IN (column3, column4, column5, column6);

-- @query 488 predicates.slt:502 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE column2 NOT IN (column3, column4, column5, column6, 2.1, NULL, '-NaN'::double);

-- @query 489 predicates.slt:507 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE NULL IN (column2, column2 + 1, column2 + 2, column2 + 3);

-- @query 490 predicates.slt:511 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE 'NaN'::double IN (column2, column2 + 1, column2 + 2, column2 + 3);

-- @query 491 predicates.slt:516 table=test_float@predicates.slt:442
SELECT column1 FROM test_float WHERE '-NaN'::double IN (column2, column2 + 1, column2 + 2, column2 + 3);

-- @query 492 predicates.slt:521 table=aggregate_test_100
SELECT c3, c7 FROM aggregate_test_100 WHERE c3 IN (c7 / 10, c7 / 20, c7 / 30, c7 / 40, 68, 103);

-- @query 493 predicates.slt:644 table=t@predicates.slt:636
select * from t where (b OR b) = b;

-- @query 494 predicates.slt:651 table=t@predicates.slt:636
select * from t where (s LIKE 'T%') = true;

-- @query 495 predicates.slt:656 table=t@predicates.slt:636
select * from t where (i & 3) = 1;

-- @query 496 predicates.slt:965 table=t@predicates.slt:929 df-error
SELECT * FROM t WHERE x / 0 > 1 AND (10 * NULL < x);

-- @query 497 predicates.slt:968 table=t@predicates.slt:929 df-error
SELECT * FROM t WHERE (10 * NULL < x) AND x / 0 > 1;

-- @query 498 select.slt:148 table=test@select.slt:100
SELECT c1, c2 FROM test WHERE c1 > 0 AND c1 < 3;

-- @query 499 select.slt:175 table=test@select.slt:100
SELECT c1, c3 FROM test WHERE c1 > 2 AND c3 = true;

-- @query 500 select.slt:434 table=aggregate_test_100
SELECT * FROM aggregate_test_100 WHERE 1=2;

-- @query 501 select.slt:477 table=foo@select.slt:470
select distinct '1' from foo;

-- @query 502 select.slt:483 table=foo@select.slt:470
select '1' from foo order by column1;

-- @query 503 select.slt:491 table=foo@select.slt:470 df-error
select distinct '1' from foo order by column1;

-- @query 504 select.slt:806 table=select_between_data@select.slt:801
SELECT abs(c1) BETWEEN 0 AND LoG(c1 * 100 ) FROM select_between_data ORDER BY c1;

-- @query 505 select.slt:944 table=aggregate_test_100
SELECT o1, o2, c3
FROM (
    SELECT c1 AS o1, c2 + 1 AS o2, c3
    FROM (
        SELECT c1, c2, c3, c4
        FROM aggregate_test_100
        WHERE c1 = 'a' AND c2 >= 4
        ORDER BY c2 ASC, c3 ASC
    ) AS a
) AS b;

-- @query 506 select.slt:965 table=aggregate_test_100
SELECT o1, o2, c3
FROM (
    SELECT c1 AS o1, c2 + 1 AS o2, c3
    FROM (
        SELECT c1, c2, c3, c4
        FROM aggregate_test_100
        WHERE c1 = 'a' AND c2 >= 4
        ORDER BY c2 ASC, c3 ASC
    )
);

-- @query 507 select.slt:986 table=aggregate_test_100
SELECT o1, o2, c3, p1, p2, p3
FROM
    (SELECT c1 AS o1, c2 + 1 AS o2, c3 FROM aggregate_test_100),
    (SELECT c1 AS p1, c2 - 1 AS p2, c3 AS p3 FROM aggregate_test_100)
LIMIT 5;

-- @query 508 select.slt:1046 table=case_sensitive_table@select.slt:1043 df-error
select "int32" from case_sensitive_table;

-- @query 509 select.slt:1049 table=case_sensitive_table@select.slt:1043
select "INT32" from case_sensitive_table;

-- @query 510 select.slt:1117 table=table1@select.slt:1103
SELECT * EXCLUDE(b) FROM (
  SELECT * EXCLUDE a
    FROM table1
    ORDER BY c
    LIMIT 5
  );

-- @query 511 select.slt:1132 table=table1@select.slt:1103
SELECT * EXCEPT(a, b)
FROM table1
ORDER BY c
LIMIT 5;

-- @query 512 select.slt:1142 table=table1@select.slt:1103
SELECT * EXCLUDE(a, b)
FROM table1
ORDER BY c
LIMIT 5;

-- @query 513 select.slt:1153 table=table1@select.slt:1103
SELECT table1.* EXCLUDE(a, b)
FROM table1
ORDER BY c
LIMIT 5;

-- @query 514 select.slt:1163 table=table1@select.slt:1103 df-error
SELECT * EXCLUDE e
FROM table1;

-- @query 515 select.slt:1168 table=table1@select.slt:1103 df-error
SELECT * EXCEPT(e)
FROM table1;

-- @query 516 select.slt:1174 table=table1@select.slt:1103
SELECT a as a1, b as b1, * EXCEPT(a)
FROM table1;

-- @query 517 select.slt:1182 table=table1@select.slt:1103 df-error
SELECT * EXCLUDE(a, a)
FROM table1;

-- @query 518 select.slt:1187 table=table1@select.slt:1103
SELECT * EXCEPT(a, b, c, d)
FROM table1;

-- @query 519 select.slt:1192 table=table1@select.slt:1103
SELECT * EXCLUDE(b, a)
FROM table1
ORDER BY c
LIMIT 5;

-- @query 520 select.slt:1202 table=table1@select.slt:1103 df-error
SELECT * EXCLUDE(d, b, c, a, a, b, c, d)
FROM table1;

-- @query 521 select.slt:1398 table=t@select.slt:1395
select z+1, y from (select x+1 as z, y from t) where y > 1;

-- @query 522 select.slt:1416 table=t@select.slt:1395
SELECT x/2, x/2+1 FROM t;

-- @query 523 select.slt:1434 table=t@select.slt:1395
SELECT abs(x), abs(x) + abs(y) FROM t;

-- @query 524 select.slt:1447 table=t@select.slt:1444
SELECT
CASE WHEN B.x > 0 THEN A.x / B.x ELSE 0 END AS value1,
CASE WHEN B.x > 0 AND B.y > 0 THEN A.x / B.x ELSE 0 END AS value3
FROM t AS A, (SELECT * FROM t WHERE x = 0) AS B;

-- @query 525 select.slt:1494 table=t@select.slt:1444 df-error
select coalesce(1, y/x), coalesce(2, y/x) from t;

-- @query 526 select.slt:1497 table=t@select.slt:1444 df-error
SELECT y > 0 and 1 / y < 1, x > 0 and y > 0 and 1 / y < 1 / x from t;

-- @query 527 select.slt:1500 table=t@select.slt:1444 df-error
SELECT y = 0 or 1 / y < 1, x = 0 or y = 0 or 1 / y < 1 / x from t;

-- @query 528 select.slt:1564 table=test@select.slt:1560
SELECT i + i FROM test WHERE i > 2;

-- @query 529 select.slt:1602 table=t@select.slt:1599
select a from t;

-- @query 530 union.slt:111 table=aggregate_test_100
select COUNT(*) from (
    SELECT c1 FROM aggregate_test_100
    UNION ALL
    SELECT c1 FROM aggregate_test_100
);

-- @query 531 union.slt:172 table=t@union.slt:169
SELECT COUNT(*) FROM (
    SELECT a from t
    UNION ALL
    SELECT a from t
);

-- @query 532 union.slt:415 table=aggregate_test_100
SELECT c1, c9 FROM aggregate_test_100 UNION ALL SELECT c1, c3 FROM aggregate_test_100 ORDER BY c9 DESC LIMIT 5;

