-- Fairway job store on PostgreSQL, version 20: leadership terms, for several manager replicas sharing one store.
-- The one row of leadership holds the term of the manager that leads now; a manager taking the lead raises it.
-- A leader's writes check its term first, so a manager that lost the lead without noticing cannot write any more.
CREATE TABLE leadership (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  term     BIGINT  NOT NULL,
  holder   TEXT    NOT NULL,
  since_ms BIGINT  NOT NULL
);
INSERT INTO leadership (id, term, holder, since_ms) VALUES (1, 0, '', 0);

-- the term of the leader that wrote an event (0: written by a submission API, or before terms existed)
ALTER TABLE events ADD COLUMN term BIGINT NOT NULL DEFAULT 0;

-- Several replicas write events at once. A transaction takes this lock before its first event gets its number and
-- keeps it until it commits, so events become visible in the order of their numbers: a reader that saw event n has
-- seen every event before it (a watcher, or the leader reading new submissions, resumes from the last number seen).
CREATE FUNCTION fairway_events_in_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7324031020);
  RETURN NULL;
END
$$;
CREATE TRIGGER events_in_order BEFORE INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION fairway_events_in_order();
