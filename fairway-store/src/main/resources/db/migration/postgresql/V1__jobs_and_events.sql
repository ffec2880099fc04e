-- Fairway job store on PostgreSQL, version 1: the same tables as on SQLite.
CREATE TABLE jobs (
  id           TEXT    PRIMARY KEY,
  queue        TEXT    NOT NULL,
  job_set      TEXT    NOT NULL,
  owner        TEXT    NOT NULL,
  priority     INTEGER NOT NULL,
  state        TEXT    NOT NULL,
  submitted_ms BIGINT  NOT NULL,
  template     TEXT    NOT NULL
);
CREATE INDEX jobs_by_set ON jobs (queue, job_set);

CREATE TABLE events (
  seq     BIGSERIAL PRIMARY KEY,
  queue   TEXT    NOT NULL,
  job_set TEXT    NOT NULL,
  job_id  TEXT,
  type    TEXT    NOT NULL,
  at_ms   BIGINT  NOT NULL,
  detail  TEXT    NOT NULL
);
CREATE INDEX events_by_set ON events (queue, job_set, seq);
