CREATE TABLE t (k int PRIMARY KEY, v int, s varchar);
CREATE TABLE u (k int PRIMARY KEY, w int);
CREATE TABLE orders (id bigint PRIMARY KEY, customer int, amount decimal, placed timestamptz);
CREATE TABLE customers (id int PRIMARY KEY, name varchar, region varchar);
CREATE TABLE events (player varchar, score int, ts timestamptz) APPEND ONLY;
CREATE SOURCE clicks (page varchar, who varchar, at timestamptz, WATERMARK FOR at AS at - INTERVAL '5 SECONDS')
    WITH (connector = 'datagen', datagen.rows.per.second = '10');
