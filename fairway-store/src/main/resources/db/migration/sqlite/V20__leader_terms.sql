-- Fairway job store, version 20: leadership terms, for several manager processes sharing one store.
-- The one row of leadership holds the term of the manager that leads now; a manager taking the lead raises it.
-- A leader's writes check its term first, so a manager that lost the lead without noticing cannot write any more.
CREATE TABLE leadership (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  term     INTEGER NOT NULL,
  holder   TEXT    NOT NULL,
  since_ms INTEGER NOT NULL
);
INSERT INTO leadership (id, term, holder, since_ms) VALUES (1, 0, '', 0);

-- the term of the leader that wrote an event (0: written by a submission API, or before terms existed)
ALTER TABLE events ADD COLUMN term INTEGER NOT NULL DEFAULT 0;
