-- Fairway job store on PostgreSQL, version 10: the same shared templates as on SQLite.
CREATE TABLE templates (
  id   BIGSERIAL PRIMARY KEY,
  body TEXT      NOT NULL
);
ALTER TABLE jobs ADD COLUMN template_id BIGINT REFERENCES templates (id);
ALTER TABLE jobs ADD COLUMN fill TEXT;
