-- Fairway job store, version 10: the jobs of a set that are alike share one stored template.
-- A job with template_id set keeps '' in template and its own part (its name) in fill; its template is the shared
-- body with each U+0001 replaced by fill. Jobs stored before keep their whole template (template_id NULL).
CREATE TABLE templates (
  id   INTEGER PRIMARY KEY,
  body TEXT    NOT NULL
);
ALTER TABLE jobs ADD COLUMN template_id INTEGER REFERENCES templates (id);
ALTER TABLE jobs ADD COLUMN fill TEXT;
