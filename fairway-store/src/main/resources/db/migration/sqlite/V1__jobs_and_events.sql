-- Fairway job store, version 1: the queued jobs and the job sets' event history.
-- A job row is written in the same transaction as its SUBMITTED event; its state moves with each later event.
CREATE TABLE jobs (
  id           TEXT    PRIMARY KEY,
  queue        TEXT    NOT NULL,
  job_set      TEXT    NOT NULL,
  owner        TEXT    NOT NULL,
  priority     INTEGER NOT NULL,
  state        TEXT    NOT NULL,
  submitted_ms INTEGER NOT NULL,
  template     TEXT    NOT NULL
);
CREATE INDEX jobs_by_set ON jobs (queue, job_set);

-- seq never goes back and is never reused (AUTOINCREMENT): a watcher resumes from the last seq it saw.
CREATE TABLE events (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  queue   TEXT    NOT NULL,
  job_set TEXT    NOT NULL,
  job_id  TEXT,
  type    TEXT    NOT NULL,
  at_ms   INTEGER NOT NULL,
  detail  TEXT    NOT NULL
);
CREATE INDEX events_by_set ON events (queue, job_set, seq);
