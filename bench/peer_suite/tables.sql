-- The small tables the queries read, as the .slt files create them (see SOURCE.txt),
-- in DuckDB's dialect; written by extract.py. Header: -- @table <id> name=<name>.

-- @table t@aggregate.slt:945 name=t
CREATE TABLE t (a DOUBLE,
  b BIGINT,
  c INT);
INSERT INTO t VALUES
(1.0, 10, -5),
(2.0, 20, -5),
(3.0, 20, 4);

-- @table median_window_test@aggregate.slt:1185 name=median_window_test
CREATE TABLE median_window_test (timestamp INT,
    tags VARCHAR,
    value DOUBLE);
INSERT INTO median_window_test (timestamp, tags, value) VALUES
(1, 'tag1', 10.0),
(2, 'tag1', 20.0),
(3, 'tag1', 30.0),
(4, 'tag1', 40.0),
(5, 'tag1', 50.0),
(1, 'tag2', 60.0),
(2, 'tag2', 70.0),
(3, 'tag2', 80.0),
(4, 'tag2', 90.0),
(5, 'tag2', 100.0);

-- @table t@aggregate.slt:1468 name=t
CREATE TABLE t (c int);
INSERT INTO t values (1), (2), (3), (4), (5);

-- @table t@aggregate.slt:1480 name=t
CREATE TABLE t (c int);
INSERT INTO t values (1), (2), (3), (4), (5), (6);

-- @table t@aggregate.slt:1492 name=t
CREATE TABLE t (c int);
INSERT INTO t values (1), (null), (3), (4), (5);

-- @table t@aggregate.slt:1504 name=t
CREATE TABLE t (c int);
INSERT INTO t values (null), (null), (null);

-- @table t@aggregate.slt:1516 name=t
CREATE TABLE t (c UINTEGER);
INSERT INTO t values (1), (2), (3), (4), (5);

-- @table t@aggregate.slt:1528 name=t
CREATE TABLE t (c float);
INSERT INTO t values (1.1), (2.2), (3.3), (4.4), (5.5);

-- @table t@aggregate.slt:1540 name=t
CREATE TABLE t (c decimal(10, 4));
INSERT INTO t values (0.0001), (0.0001), (0.0001), (0.0001), (0.0002), (0.0002), (0.0003), (0.0003);

-- @table t@aggregate.slt:1552 name=t
CREATE TABLE t (c decimal(10, 4));
INSERT INTO t values (0.0001), (0.0001), (0.0001), (null), (null), (0.0002), (0.0003), (0.0003);

-- @table t@aggregate.slt:1564 name=t
CREATE TABLE t (c int);
INSERT INTO t values (2), (1), (1), (2), (1), (3);

-- @table t@aggregate.slt:1576 name=t
CREATE TABLE t (c int);
INSERT INTO t values (1), (1), (3), (1), (1);

-- @table t@aggregate.slt:1588 name=t
CREATE TABLE t (c int);
INSERT INTO t values (1), (null), (1), (1), (3);

-- @table t@aggregate.slt:1600 name=t
CREATE TABLE t (c UINTEGER);
INSERT INTO t values (1), (1), (2), (1), (3);

-- @table t@aggregate.slt:1612 name=t
CREATE TABLE t (c UINTEGER);
INSERT INTO t values (1), (1), (1), (1), (3), (3);

-- @table t@aggregate.slt:1624 name=t
CREATE TABLE t (c float);
INSERT INTO t values (3), (2), (1), (1), (1);

-- @table t@aggregate.slt:1636 name=t
CREATE TABLE t (c float);
INSERT INTO t values (1), (1), (1), (1), (2);

-- @table t@aggregate.slt:1648 name=t
CREATE TABLE t (c double);
INSERT INTO t values (1), (1), (1), (2), (3);

-- @table t@aggregate.slt:1660 name=t
CREATE TABLE t (c double);
INSERT INTO t values (1), (1), (1), (1), (2);

-- @table t@aggregate.slt:1672 name=t
CREATE TABLE t (c int);
INSERT INTO t values (1), (1), (1), (1), (2), (2), (3), (3);

-- @table cpu@aggregate.slt:1711 name=cpu
CREATE TABLE cpu (host VARCHAR, usage float);
INSERT INTO cpu select * from (values
('host0', 90.1),
('host1', 90.2),
('host1', 90.4)
);

-- @table cpu@aggregate.slt:1753 name=cpu
CREATE TABLE cpu (host VARCHAR, usage float);
INSERT INTO cpu select * from (values
  ('host0', 90.2),
  ('host1', 90.1),
  ('host1', 90.5),
  ('host0', 90.5),
  ('host1', 90.0),
  ('host1', 90.3),
  ('host0', 87.9),
  ('host1', 89.3)
);

-- @table cpu@aggregate.slt:1777 name=cpu
CREATE TABLE cpu (host VARCHAR, usage float);
INSERT INTO cpu select * from (values ('host0', 90.2), ('host1', 90.1), ('host1', 90.5), ('host0', 90.5), ('host1', 90.0), ('host1', 90.3), ('host1', 90.2), ('host1', 90.3));

-- @table test@aggregate.slt:68 name=test
CREATE TABLE test (c1 BIGINT,c2 BIGINT);
INSERT INTO test values
(0,null), (1,1), (null,1), (3,2), (3,2);

-- @table table_agg_cube@aggregate.slt:3212 name=table_agg_cube
CREATE TABLE table_agg_cube (c1 int, c2 int, c3 int);
INSERT INTO table_agg_cube values (1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 1, 1), (2, 2, 2), (2, 3, 3), (3, 1, 1), (3, 2, 2), (3, 3, 3);

-- @table corr_test@aggregate.slt:3431 name=corr_test
CREATE TABLE corr_test (int8_col TINYINT,
  int16_col SMALLINT,
  int32_col INT,
  int64_col BIGINT,
  uint32_col UINTEGER,
  float32_col FLOAT,
  float64_col DOUBLE);
INSERT INTO corr_test VALUES
(1, 10, 100, 1000, 10000, 1.1, 10.1),
(2, 20, 200, 2000, 20000, 2.2, 20.2),
(3, 30, 300, 3000, 30000, 3.3, 30.3),
(4, 40, 400, 4000, 40000, 4.4, 40.4),
(5, 50, 500, 5000, 50000, 5.5, 50.5);

-- @table corr_nulls@aggregate.slt:3472 name=corr_nulls
CREATE TABLE corr_nulls (x INT,
  y DOUBLE);
INSERT INTO corr_nulls VALUES
(1, 10.0),
(2, 20.0),
(NULL, 30.0),
(4, NULL),
(5, 50.0);

-- @table corr_single_row@aggregate.slt:3490 name=corr_single_row
CREATE TABLE corr_single_row (x INT,
  y DOUBLE);
INSERT INTO corr_single_row VALUES
(1, 10.0);

-- @table corr_all_nulls@aggregate.slt:3503 name=corr_all_nulls
CREATE TABLE corr_all_nulls (x INT,
  y DOUBLE);
INSERT INTO corr_all_nulls VALUES
(NULL, NULL),
(NULL, NULL);

-- @table t@aggregate.slt:4465 name=t
CREATE TABLE t (a int, b float, c bigint);
INSERT INTO t values (1, 1.2, 2);

-- @table t@aggregate.slt:4536 name=t
CREATE TABLE t (a int, b float, c bigint);

-- @table t@aggregate.slt:4574 name=t
CREATE TABLE t (c1 int);
INSERT INTO t values (1), (2), (3), (4), (5);

-- @table t@aggregate.slt:4598 name=t
CREATE TABLE t AS SELECT * FROM (values (NULL, ''), (1, 'c'), (2, 'a'), (NULL, 'b'), (4, NULL), (NULL, NULL), (5, 'a')) AS v(column1, column2);

-- @table empty@aggregate.slt:4639 name=empty
CREATE TABLE empty (column1 bigint, column2 int);

-- @table the_nulls@aggregate.slt:4679 name=the_nulls
CREATE TABLE the_nulls AS SELECT * FROM (VALUES
  (null::bigint, 1),
  (null::bigint, 1),
  (null::bigint, 2)) AS v(column1, column2);

-- @table bit_aggregate_functions@aggregate.slt:4731 name=bit_aggregate_functions
CREATE TABLE bit_aggregate_functions (c1 SMALLINT NOT NULL,
  c2 SMALLINT NOT NULL,
  c3 SMALLINT,
  tag varchar);
INSERT INTO bit_aggregate_functions values
  (5,  10, 11,   'A'),
  (33, 11, null, 'B'),
  (9,  12, null, 'A');

-- @table decimals@aggregate.slt:4982 name=decimals
CREATE TABLE decimals (value DECIMAL(10, 2));
INSERT INTO decimals VALUES (123.0001), (124.00);

-- @table decimals_batch@aggregate.slt:4996 name=decimals_batch
CREATE TABLE decimals_batch (value DECIMAL(10, 0));
INSERT INTO decimals_batch VALUES (1), (2), (3), (4), (5);

-- @table decimals_empty@aggregate.slt:5007 name=decimals_empty
CREATE TABLE decimals_empty (value DECIMAL(10, 0));

-- @table decimals_all_nulls@aggregate.slt:5022 name=decimals_all_nulls
CREATE TABLE decimals_all_nulls (value DECIMAL(10, 0));
INSERT INTO decimals_all_nulls VALUES (NULL), (NULL), (NULL), (NULL), (NULL), (NULL);

-- @table decimals_with_nulls@aggregate.slt:5037 name=decimals_with_nulls
CREATE TABLE decimals_with_nulls (value DECIMAL(10, 0));
INSERT INTO decimals_with_nulls VALUES (1), (NULL), (3), (4), (5);

-- @table decimals_error@aggregate.slt:5048 name=decimals_error
CREATE TABLE decimals_error (value DECIMAL(10, 2));

-- @table decimals_agg@aggregate.slt:5065 name=decimals_agg
CREATE TABLE decimals_agg (value DECIMAL(10, 0));
INSERT INTO decimals_agg VALUES (1), (2), (3), (4), (5);

-- @table integers@aggregate.slt:5080 name=integers
CREATE TABLE integers (value INT);
INSERT INTO integers VALUES (1), (2), (3), (4), (5);

-- @table strings@aggregate.slt:5095 name=strings
CREATE TABLE strings (value TEXT);
INSERT INTO strings VALUES ('d'), ('a'), ('c'), ('b');

-- @table integers_with_nulls@aggregate.slt:5110 name=integers_with_nulls
CREATE TABLE integers_with_nulls (value INT);
INSERT INTO integers_with_nulls VALUES (1), (NULL), (3), (4), (5);

-- @table integers_all_nulls@aggregate.slt:5134 name=integers_all_nulls
CREATE TABLE integers_all_nulls (value INT);

-- @table uintegers@aggregate.slt:5149 name=uintegers
CREATE TABLE uintegers (value UINTEGER);
INSERT INTO uintegers VALUES (1), (2), (3), (4), (5);

-- @table floats@aggregate.slt:5164 name=floats
CREATE TABLE floats (value FLOAT);
INSERT INTO floats VALUES (1.0), (2.0), (3.0), (4.0), (5.0);

-- @table doubles@aggregate.slt:5179 name=doubles
CREATE TABLE doubles (value DOUBLE);
INSERT INTO doubles VALUES (1.0), (2.0), (3.0), (4.0), (5.0);

-- @table dates@aggregate.slt:5194 name=dates
CREATE TABLE dates (value DATE);
INSERT INTO dates VALUES ('1970-01-02'), ('1970-01-03'), ('1970-01-04'), ('1970-01-05'), ('1970-01-06');

-- @table times@aggregate.slt:5209 name=times
CREATE TABLE times (value TIME);
INSERT INTO times VALUES ('00:00:01'), ('00:00:02'), ('00:00:03'), ('00:00:04'), ('00:00:05');

-- @table time32millisecond@aggregate.slt:5224 name=time32millisecond
CREATE TABLE time32millisecond (value TIME);
INSERT INTO time32millisecond VALUES ('00:00:00.001'), ('00:00:00.002'), ('00:00:00.003'), ('00:00:00.004'), ('00:00:00.005');

-- @table time64microsecond@aggregate.slt:5239 name=time64microsecond
CREATE TABLE time64microsecond (value TIME);
INSERT INTO time64microsecond VALUES ('00:00:00.000001'), ('00:00:00.000002'), ('00:00:00.000003'), ('00:00:00.000004'), ('00:00:00.000005');

-- @table time64nanosecond@aggregate.slt:5254 name=time64nanosecond
CREATE TABLE time64nanosecond (value TIME);
INSERT INTO time64nanosecond VALUES ('00:00:00.000000001'), ('00:00:00.000000002'), ('00:00:00.000000003'), ('00:00:00.000000004'), ('00:00:00.000000005');

-- @table timestampmicrosecond@aggregate.slt:5269 name=timestampmicrosecond
CREATE TABLE timestampmicrosecond (value TIMESTAMP);
INSERT INTO timestampmicrosecond VALUES ('1970-01-01 00:00:00.000001'), ('1970-01-01 00:00:00.000002'), ('1970-01-01 00:00:00.000003'), ('1970-01-01 00:00:00.000004'), ('1970-01-01 00:00:00.000005');

-- @table max_bool@aggregate.slt:5360 name=max_bool
CREATE TABLE max_bool (value BOOLEAN);
INSERT INTO max_bool VALUES (false), (false);

-- @table max_bool@aggregate.slt:5374 name=max_bool
CREATE TABLE max_bool (value BOOLEAN);
INSERT INTO max_bool VALUES (true), (true);

-- @table max_bool@aggregate.slt:5388 name=max_bool
CREATE TABLE max_bool (value BOOLEAN);
INSERT INTO max_bool VALUES (false), (true), (false);

-- @table max_bool@aggregate.slt:5402 name=max_bool
CREATE TABLE max_bool (value BOOLEAN);
INSERT INTO max_bool VALUES (true), (false), (true);

-- @table min_bool@aggregate.slt:5417 name=min_bool
CREATE TABLE min_bool (value BOOLEAN);
INSERT INTO min_bool VALUES (false), (false);

-- @table min_bool@aggregate.slt:5431 name=min_bool
CREATE TABLE min_bool (value BOOLEAN);
INSERT INTO min_bool VALUES (true), (true);

-- @table min_bool@aggregate.slt:5445 name=min_bool
CREATE TABLE min_bool (value BOOLEAN);
INSERT INTO min_bool VALUES (false), (true), (false);

-- @table min_bool@aggregate.slt:5459 name=min_bool
CREATE TABLE min_bool (value BOOLEAN);
INSERT INTO min_bool VALUES (true), (false), (true);

-- @table strings@aggregate.slt:5483 name=strings
CREATE TABLE strings (value TEXT, id int);
INSERT INTO strings VALUES
 ('c', 1),
 ('d', 1),
 ('a', 3),
 ('c', 1),
 ('b', 1),
 (NULL, 1),
 (NULL, 4),
 ('d', 1),
 ('z', 2),
 ('c', 1),
 ('a', 2);

-- @table bool_aggregate_functions@aggregate.slt:5692 name=bool_aggregate_functions
CREATE TABLE bool_aggregate_functions (c1 boolean not null,
  c2 boolean not null,
  c3 boolean not null,
  c4 boolean not null,
  c5 boolean,
  c6 boolean,
  c7 boolean,
  c8 boolean);
INSERT INTO bool_aggregate_functions values
  (true, true, false, false, true, true, null, null),
  (true, false, true, false, false, null, false, null),
  (true, true, false, false, null, true, false, null);

-- @table t1@aggregate.slt:5751 name=t1
CREATE TABLE t1 (v1 int, v2 boolean);
INSERT INTO t1 values (1, true), (1, true);
INSERT INTO t1 values (3, null), (3, true);
INSERT INTO t1 values (2, false), (2, true);
INSERT INTO t1 values (6, false), (6, false);
INSERT INTO t1 values (4, null), (4, null);
INSERT INTO t1 values (5, false), (5, null);

-- @table d_table@aggregate.slt:43 name=d_table
CREATE TABLE d_table (c1 decimal(10,3), c2 varchar);
INSERT INTO d_table values
(110.000, 'A'), (110.001, 'A'), (110.002, 'A'), (110.003, 'A'), (110.004, 'A'), (110.005, 'A'), (110.006, 'A'), (110.007, 'A'), (110.008, 'A'), (110.009, 'A'),
(-100.000, 'B'),(-100.001, 'B'),(-100.002, 'B'),(-100.003, 'B'),(-100.004, 'B'),(-100.005, 'B'),(-100.006, 'B'),(-100.007, 'B'),(-100.008, 'B'),(-100.009, 'B');

-- @table test_table@aggregate.slt:6320 name=test_table
CREATE TABLE test_table (c1 INT, c2 INT, c3 INT);
INSERT INTO test_table VALUES
  (1, 10, 50),
  (1, 20, 60),
  (2, 10, 70),
  (2, 20, 80),
  (3, 10, NULL);

-- @table test_decimal_table@aggregate.slt:6466 name=test_decimal_table
CREATE TABLE test_decimal_table (c1 INT, c2 DECIMAL(5, 2), c3 DECIMAL(5, 1), c4 DECIMAL(5, 1));
INSERT INTO test_decimal_table VALUES (1, 10.10, 100.1, NULL), (1, 20.20, 200.2, NULL), (2, 10.10, 700.1, NULL), (2, 20.20, 700.1, NULL), (3, 10.1, 100.1, NULL), (3, 10.1, NULL, NULL);

-- @table value_bool@aggregate.slt:6815 name=value_bool
CREATE TABLE value_bool (x boolean, g int);
INSERT INTO value_bool VALUES (NULL, 0), (false, 0), (true, 0), (false, 1), (true, 2), (NULL, 3);

-- @table strings@aggregate.slt:7364 name=strings
CREATE TABLE strings (g INTEGER, x VARCHAR, y VARCHAR);
INSERT INTO strings VALUES (1,'a','/'), (1,'b','-'), (2,'i','/'), (2,NULL,'-'), (2,'j','+'), (3,'p','/'), (4,'x','/'), (4,'y','-'), (4,'z','+');

-- @table t@aggregate.slt:7452 name=t
CREATE TABLE t (k varchar, v int);
INSERT INTO t values ('a', 2), ('b', 3), ('c', 1), ('d', null);

-- @table distinct_count_string_table@aggregate.slt:7645 name=distinct_count_string_table
CREATE TABLE distinct_count_string_table AS SELECT * FROM (values
    (1, 'a', 'longstringtest_a', '台灣'),
    (2, 'b', 'longstringtest_b1', '日本'),
    (2, 'b', 'longstringtest_b2', '中國'),
    (3, 'c', 'longstringtest_c1', '美國'),
    (3, 'c', 'longstringtest_c2', '歐洲'),
    (3, 'c', 'longstringtest_c3', '韓國')) AS v(column1, column2, column3, column4);

-- @table empty@aggregate.slt:7760 name=empty
CREATE TABLE empty (col0 INTEGER);

-- @table t@aggregate.slt:7808 name=t
CREATE TABLE t (col0 INTEGER);
INSERT INTO t VALUES(2);

-- @table t@aggregate.slt:7826 name=t
CREATE TABLE t (a BIGINT);
INSERT INTO t VALUES(1), (2), (3);

-- @table t@aggregate.slt:7854 name=t
CREATE TABLE t AS SELECT * FROM (VALUES (null::bigint), (3), (4)) AS v(column1);

-- @table t@aggregate.slt:7876 name=t
CREATE TABLE t AS SELECT * FROM (VALUES  (3, 4), (4, 3), (null::bigint, 1), (null::bigint, 1)) AS v(column1, column2);

-- @table t@aggregate.slt:7906 name=t
CREATE TABLE t AS SELECT * FROM (VALUES (3), (4), (null::bigint)) AS v(column1);

-- @table t@aggregate.slt:7928 name=t
CREATE TABLE t AS SELECT * FROM (VALUES  (3, 3), (4, 4), (null::bigint, 1), (null::bigint, 2)) AS v(column1, column2);

-- @table example@aggregate.slt:7961 name=example
CREATE TABLE example (data double precision);
INSERT INTO example VALUES (1), (2), (NULL), (4);

-- @table employee_csv@aggregate.slt:8029 name=employee_csv
CREATE TABLE employee_csv (id int, first_name VARCHAR, last_name varchar, state varchar, salary bigint);
INSERT INTO employee_csv values (1, 'jenson', 'huang', 'unemployed', 10);

-- @table having_test@aggregate.slt:8075 name=having_test
CREATE TABLE having_test (v1 int, v2 int);
INSERT INTO having_test values (1, 2), (2, 3), (3, 4);

-- @table t1@aggregate.slt:8184 name=t1
CREATE TABLE t1 (v1 int);

-- @table t1@aggregate.slt:8200 name=t1
CREATE TABLE t1 (v1 int);
INSERT INTO t1 VALUES (1), (2), (3);

-- @table t@aggregate.slt:8298 name=t
CREATE TABLE t (a int, b int);
INSERT INTO t values (1, 3), (2, 4), (3, 5);

-- @table t@aggregate.slt:8321 name=t
CREATE TABLE t (a int);
INSERT INTO t values (1), (2);

-- @table string_agg_window_test@aggregate.slt:8889 name=string_agg_window_test
CREATE TABLE string_agg_window_test (id INT,
    grp VARCHAR,
    val VARCHAR);
INSERT INTO string_agg_window_test (id, grp, val) VALUES
(1, 'A', 'a'),
(2, 'A', 'b'),
(3, 'A', 'c'),
(1, 'B', 'x'),
(2, 'B', 'y'),
(3, 'B', 'z');

-- @table stream_test@aggregate.slt:8927 name=stream_test
CREATE TABLE stream_test (g INT,
    x DOUBLE,
    y DOUBLE,
    i INT,
    b BOOLEAN,
    s VARCHAR);
INSERT INTO stream_test VALUES
(1, 1.0, 1.0, 1, true, 'a'), (1, 2.0, 2.0, 2, true, 'b'),
(2, 1.0, 5.0, 3, false, 'c'), (2, 2.0, 5.0, 4, true, 'd'),
(3, 1.0, 1.0, 7, false, 'e'), (3, 2.0, 2.0, 8, false, 'f');

-- @table aggregate_test_100_bool@aggregate_skip_partial.slt:51 name=aggregate_test_100_bool
CREATE TABLE aggregate_test_100_bool (v1 VARCHAR NOT NULL,
  v2 BOOLEAN,
  v3 BOOLEAN);
INSERT INTO aggregate_test_100_bool SELECT
  c1 as v1,
  CASE WHEN c2 > 3 THEN TRUE WHEN c2 > 1 THEN FALSE ELSE NULL END as v2,
  CASE WHEN c1='a' OR c1='b' THEN TRUE WHEN c1='c' OR c1='d' THEN FALSE ELSE NULL END as v3
FROM aggregate_test_100;

-- @table aggregate_test_100_null@aggregate_skip_partial.slt:258 name=aggregate_test_100_null
CREATE TABLE aggregate_test_100_null (c2  TINYINT NOT NULL,
  c5  INT NOT NULL,
  c3  SMALLINT,
  c11 FLOAT);
INSERT INTO aggregate_test_100_null SELECT
  c2,
  c5,
  CASE WHEN c1 = 'e' THEN NULL ELSE c3 END as c3,
  CASE WHEN c1 = 'a' THEN NULL ELSE c11 END as c11
FROM aggregate_test_100;

-- @table bool_aggregate_functions@aggregate_skip_partial.slt:780 name=bool_aggregate_functions
CREATE TABLE bool_aggregate_functions (c1 boolean not null,
  c2 boolean not null,
  c3 boolean not null,
  c4 boolean not null,
  c5 boolean,
  c6 boolean,
  c7 boolean,
  c8 boolean);
INSERT INTO bool_aggregate_functions values
  (true, true, false, false, true, true, null, null),
  (true, false, true, false, false, null, false, null),
  (true, true, false, false, null, true, false, null);

-- @table agg_order_by_t@aggregate_skip_partial.slt:841 name=agg_order_by_t
CREATE TABLE agg_order_by_t (g INT, v DOUBLE, i BIGINT);
INSERT INTO agg_order_by_t VALUES
(1, 1.0, 1),
(1, 3.0, 3),
(2, 5.0, 5),
(2, 7.0, 7),
(2, 9.0, 9);

-- @table t1@limit.slt:301 name=t1
CREATE TABLE t1 (a INT);
INSERT INTO t1 VALUES(1),(2),(3),(4),(5),(6),(7),(8),(9),(10);

-- @table t15@limit.slt:455 name=t15
CREATE TABLE t15 (i BIGINT);
INSERT INTO t15 VALUES (1);
INSERT INTO t15 VALUES (1), (2);
INSERT INTO t15 VALUES (1), (2), (3);
INSERT INTO t15 VALUES (1), (2), (3), (4);
INSERT INTO t15 VALUES (1), (2), (3), (4), (5);

-- @table testsubquerylimit@limit.slt:715 name=testsubquerylimit
CREATE TABLE testSubQueryLimit (a int, b int);
INSERT INTO testSubQueryLimit values (1,2), (2,3), (3,4);

-- @table foo@order.slt:377 name=foo
CREATE TABLE foo AS SELECT * FROM (values (1, 2), (3, 4), (5, 6)) AS v(column1, column2);

-- @table t1@order.slt:778 name=t1
CREATE TABLE t1 (id INT,
  name TEXT);
INSERT INTO t1 VALUES
(2, 'a'),
(4, 'b'),
(9, 'c'),
(3, 'd'),
(4, 'e');

-- @table foo@order.slt:915 name=foo
CREATE TABLE foo AS SELECT * FROM (values (2, [0]), (4, [1]), (2, [6]), (1, [2, 5]), (0, [3]), (3, [4]), (2, [2, 5]), (2, [7])) AS v(column1, column2);

-- @table ambiguity_test@order.slt:1064 name=ambiguity_test
CREATE TABLE ambiguity_test (a int, b int);
INSERT INTO ambiguity_test values (1,20), (2,10);

-- @table t@order.slt:1084 name=t
CREATE TABLE t (a0 int, a int, b int, c int);
INSERT INTO t values (1, 2, 3, 4), (5, 6, 7, 8);

-- @table addresses@order.slt:1487 name=addresses
CREATE TABLE addresses AS SELECT '123 Quack Blvd' AS address, 'DuckTown' AS city, '11111' AS zip
    UNION ALL
    SELECT '111 Duck Duck Goose Ln', 'DuckTown', '11111'
    UNION ALL
    SELECT '111 Duck Duck Goose Ln', 'Duck Town', '11111'
    UNION ALL
    SELECT '111 Duck Duck Goose Ln', 'Duck Town', '11111-0001';

-- @table test@predicates.slt:139 name=test
CREATE TABLE test AS SELECT * FROM (VALUES('foo'),('bar'),(NULL),('fazzz')) AS v(column1);

-- @table test@predicates.slt:194 name=test
CREATE TABLE test AS SELECT * FROM (VALUES('foo'),('Barrr'),('Bazzz'),('ZZZZZ')) AS v(column1);

-- @table test_regex_utf8view@predicates.slt:218 name=test_regex_utf8view
CREATE TABLE test_regex_utf8view (s VARCHAR);
INSERT INTO test_regex_utf8view VALUES ('foo'), ('Bazzz');

-- @table test@predicates.slt:412 name=test
CREATE TABLE test AS SELECT * FROM (VALUES('foo'),('bar'),('fazzz')) AS v(column1);

-- @table test_float@predicates.slt:442 name=test_float
CREATE TABLE test_float AS SELECT * FROM (VALUES
 ('a', 1.2, 2.3, 1.2, -3.5, 1.1),
 ('b', 2.1, 'NaN'::double, -1.7, -8.2, NULL),
 ('c', NULL, NULL, '-NaN'::double, -5.4, 1.5),
 ('d', 'NaN'::double, 'NaN'::double, 1.1, '-NaN'::double, NULL),
 ('e', '-NaN'::double, 6.2, 'NaN'::double, -3.3, 5.6)) AS v(column1, column2, column3, column4, column5, column6);

-- @table t@predicates.slt:636 name=t
CREATE TABLE t (i integer, s VARCHAR, b boolean);
INSERT INTO t VALUES
 (1,    'One', true),
 (2,    'Two', false),
 (NULL, NULL,  NULL),
 (4,    'Four', false);

-- @table t@predicates.slt:929 name=t
CREATE TABLE t (x int);
INSERT INTO t values (1), (2), (3);

-- @table test@select.slt:100 name=test
CREATE TABLE test (c1 BIGINT NOT NULL,
  c2 BIGINT NOT NULL,
  c3 BOOLEAN NOT NULL);
INSERT INTO test VALUES (0, 1, false),
(0, 10, true),
(0, 2, true),
(0, 3, false),
(0, 4, true),
(0, 5, false),
(0, 6, true),
(0, 7, false),
(0, 8, true),
(0, 9, false),
(1, 1, false),
(1, 10, true),
(1, 2, true),
(1, 3, false),
(1, 4, true),
(1, 5, false),
(1, 6, true),
(1, 7, false),
(1, 8, true),
(1, 9, false),
(2, 1, false),
(2, 10, true),
(2, 2, true),
(2, 3, false),
(2, 4, true),
(2, 5, false),
(2, 6, true),
(2, 7, false),
(2, 8, true),
(2, 9, false),
(3, 1, false),
(3, 10, true),
(3, 2, true),
(3, 3, false),
(3, 4, true),
(3, 5, false),
(3, 6, true),
(3, 7, false),
(3, 8, true),
(3, 9, false);

-- @table foo@select.slt:470 name=foo
CREATE TABLE foo AS SELECT * FROM (VALUES
(1, 2),
(3, 4),
(5, 6)) AS v(column1, column2);

-- @table select_between_data@select.slt:801 name=select_between_data
CREATE TABLE select_between_data (c1 bigint);
INSERT INTO select_between_data values (1), (2), (3), (4);

-- @table case_sensitive_table@select.slt:1043 name=case_sensitive_table
CREATE TABLE case_sensitive_table ("INT32" int);
INSERT INTO case_sensitive_table VALUES (1), (2), (3), (4), (5);

-- @table table1@select.slt:1103 name=table1
CREATE TABLE table1 (a int,
  b int,
  c int,
  d int);
INSERT INTO table1 values
  (1, 10, 100, 1000),
  (2, 20, 200, 2000);

-- @table t@select.slt:1395 name=t
CREATE TABLE t (x bigint, y bigint);
INSERT INTO t values (1,2), (1,3);

-- @table t@select.slt:1444 name=t
CREATE TABLE t (x int, y int);
INSERT INTO t values (1,1), (2,2), (3,3), (0,0), (4,0);

-- @table test@select.slt:1560 name=test
CREATE TABLE test (i INT);
INSERT INTO test VALUES (1), (2), (3);

-- @table t@select.slt:1599 name=t
CREATE TABLE t (a int, b int);

-- @table t@union.slt:169 name=t
CREATE TABLE t AS SELECT 1 as a;

