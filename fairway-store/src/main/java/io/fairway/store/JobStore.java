package io.fairway.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Queued jobs and the job sets' event history in a database: SQLite in a local file by default (one process, nothing
 * to install), or PostgreSQL for a fleet. The schema is created and upgraded by Flyway migrations when the store opens.
 *
 * <p>All writes go through one writer thread that commits them in groups (group commit): each write waits in a
 * queue, the writer takes every write waiting (up to {@link Settings#maxBatch()}), applies each inside a savepoint
 * (a failing write is rolled back alone), commits once, and only then completes the writes' futures. SQLite runs
 * in write-ahead-log mode with {@code synchronous=FULL}, so a commit returns once the log is synced to disk: a write
 * whose future completed survives a crash of the process (and of the machine). The blocking methods
 * ({@link #submit}, {@link #cancel}, {@link #reprioritize}) return only then.
 *
 * <p>Event sequence numbers only grow and are never reused; since one thread commits, a reader never sees a later
 * number before an earlier one, so a watcher resumes from the last number it saw without missing any.
 *
 * <pre>{@code
 * try (JobStore store = JobStore.open(JobStore.Settings.sqlite(Path.of("/var/lib/fairway/jobs.db")))) {
 *     store.submit("team-a", "run-7", "alice", now, List.of(new JobStore.NewJob("default/fw-1", 0, templateJson)));
 *     store.events("team-a", "run-7", 0, 100).forEach(...);
 * }
 * }</pre>
 */
public final class JobStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobStore.class);
    /** The states a job ends in: nothing changes it afterwards. */
    public static final Set<String> TERMINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED");
    /** The state of a job just submitted. */
    public static final String QUEUED = "QUEUED";
    /** The event type written with each job submitted. */
    public static final String SUBMITTED = "SUBMITTED";

    /**
     * Where the store is and how it writes.
     *
     * @param jdbcUrl the database: {@code jdbc:sqlite:FILE}, or {@code jdbc:postgresql://HOST/DB?user=U&password=P} for a
     *     fleet (a {@code currentSchema} parameter names the schema Flyway creates and migrates)
     * @param maxBatch the most writes committed together, 1..100,000
     * @param ackBeforeDurable FOR TESTS ONLY: acknowledge a submission as soon as it is queued and commit it later
     *     (a deliberately broken store, which the crash test must catch); never in production
     */
    public record Settings(String jdbcUrl, int maxBatch, boolean ackBeforeDurable) {
        /** Checks. */
        public Settings {
            if (jdbcUrl == null || !(jdbcUrl.startsWith("jdbc:sqlite:") && jdbcUrl.length() > "jdbc:sqlite:".length()
                    || jdbcUrl.startsWith("jdbc:postgresql:"))) {
                throw new IllegalArgumentException("store.url must be jdbc:sqlite:FILE or jdbc:postgresql://HOST/DB, was "
                        + (jdbcUrl == null ? null : jdbcUrl.replaceAll("password=[^&]*", "password=***")));
            }
            if (maxBatch < 1 || maxBatch > 100_000) {
                throw new IllegalArgumentException("store.maxBatch must be 1..100000, was " + maxBatch);
            }
        }

        /**
         * @param file the database file (created with its directory's permissions when missing)
         * @return an SQLite store in that file, committing up to 10,000 writes together
         */
        public static Settings sqlite(Path file) {
            return new Settings("jdbc:sqlite:" + file.toAbsolutePath(), 10_000, false);
        }

        /**
         * @param url {@code jdbc:sqlite:FILE}, or a path to an SQLite file
         * @return the settings for it
         */
        public static Settings parse(String url) {
            if (url == null || url.isBlank()) {
                throw new IllegalArgumentException("store must be jdbc:sqlite:FILE or a file path, was " + url);
            }
            return url.startsWith("jdbc:") ? new Settings(url, 10_000, false) : sqlite(Path.of(url));
        }

        /** @return true for PostgreSQL, false for SQLite */
        public boolean postgres() {
            return jdbcUrl.startsWith("jdbc:postgresql:");
        }

        /** @return these settings, acknowledging before commit (TESTS ONLY: a broken store) */
        public Settings brokenAckBeforeDurable() {
            return new Settings(jdbcUrl, maxBatch, true);
        }
    }

    /**
     * Where a job's own part goes in a template shared by the jobs of a set ({@link NewJob#shared}): a control
     * character, which JSON written by a JSON library never holds unescaped.
     */
    public static final String NAME_MARK = "\u0001";

    /**
     * A job to store.
     *
     * @param id its id (unique in the store)
     * @param priority its priority
     * @param template what the adapter needs to run it (e.g. a batch/v1 Job as JSON); opaque to the store. With
     *     {@code fill}, a template shared by jobs alike, holding {@link #NAME_MARK} where {@code fill} goes
     * @param fill the job's own part of a shared template, or null when {@code template} is the job's whole template
     */
    public record NewJob(String id, int priority, String template, String fill) {
        /** Checks. */
        public NewJob {
            if (id == null || id.isBlank() || id.length() > 253) {
                throw new IllegalArgumentException("job id must be 1..253 characters, was " + id);
            }
            if (template == null) {
                throw new IllegalArgumentException("job " + id + ": template must be set");
            }
            if (fill != null && fill.contains(NAME_MARK)) {
                throw new IllegalArgumentException("job " + id + ": fill must not hold the name mark");
            }
        }

        /**
         * A job with a template of its own.
         *
         * @param id its id
         * @param priority its priority
         * @param template its template
         */
        public NewJob(String id, int priority, String template) {
            this(id, priority, template, null);
        }

        /**
         * A job whose template it shares with others alike: stored once per submission, each job keeping its fill.
         *
         * @param id its id
         * @param priority its priority
         * @param shared the shared template, with {@link #NAME_MARK} where the fill goes
         * @param fill the job's own part (e.g. its name)
         * @return the job
         */
        public static NewJob shared(String id, int priority, String shared, String fill) {
            if (fill == null) {
                throw new IllegalArgumentException("job " + id + ": a shared template needs a fill");
            }
            return new NewJob(id, priority, shared, fill);
        }

        /** @return the job's own template */
        public String expanded() {
            return expand(template, fill);
        }
    }

    /**
     * @param template a template, shared or whole
     * @param fill the job's own part, or null
     * @return the job's template: {@code template} with each {@link #NAME_MARK} replaced by {@code fill}
     */
    public static String expand(String template, String fill) {
        return fill == null ? template : template.replace(NAME_MARK, fill);
    }

    /**
     * A job as stored, with its template as stored: the shared one once per template (the same string for every job
     * that shares it, and the same {@code templateId}), and the job's fill.
     *
     * @param job the job
     * @param templateId the shared template's number, or 0 when the job has a template of its own
     * @param template the shared template, or the job's own
     * @param fill the job's part of a shared template, or null
     */
    public record LiveJob(StoredJob job, long templateId, String template, String fill) {
        /** @return the job's own template */
        public String expanded() {
            return expand(template, fill);
        }
    }

    /**
     * A job as stored.
     *
     * @param id its id
     * @param queue its queue
     * @param jobSet its job set
     * @param owner who submitted it
     * @param priority its priority now
     * @param state its last recorded state ({@value #QUEUED}, then what the adapter recorded)
     * @param submittedMillis when it was submitted
     */
    public record StoredJob(String id, String queue, String jobSet, String owner, int priority, String state, long submittedMillis) {
        /** @return true when the job ended */
        public boolean terminal() {
            return TERMINAL.contains(state);
        }
    }

    /**
     * One event of a job set.
     *
     * @param seq its sequence number (grows across the whole store)
     * @param queue the queue
     * @param jobSet the job set
     * @param jobId the job, or null for an event of the whole set
     * @param type what happened ({@value #SUBMITTED}, LEASED, RUNNING, REQUEUED, SUCCEEDED, FAILED, CANCELLED, REPRIORITIZED …)
     * @param atMillis when
     * @param detail a message for people
     */
    public record Event(long seq, String queue, String jobSet, String jobId, String type, long atMillis, String detail) {
    }

    /**
     * A change of a job's state that the adapter records (the engine decided it).
     *
     * @param jobId the job
     * @param state its new state (the event's type too)
     * @param atMillis when
     * @param detail a message for people
     */
    public record Transition(String jobId, String state, long atMillis, String detail) {
    }

    /** One write: runs inside the writer's transaction. */
    @FunctionalInterface
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private record Op(Work<?> work, CompletableFuture<Object> done) {
    }

    private final Settings settings;
    private final boolean postgres;
    private final Connection writer;
    private final Connection reader;
    private final BlockingQueue<Op> ops = new LinkedBlockingQueue<>();
    private final Thread writerThread;
    private final Object committed = new Object();
    private volatile long lastSeq;
    private volatile boolean closed;

    private JobStore(Settings settings) throws SQLException {
        this.settings = settings;
        this.postgres = settings.postgres();
        var flyway = Flyway.configure().dataSource(settings.jdbcUrl(), null, null)
                .locations("classpath:db/migration/" + (postgres ? "postgresql" : "sqlite")).loggers("slf4j");
        String schema = postgres ? currentSchema(settings.jdbcUrl()) : null;
        if (schema != null) {
            flyway.schemas(schema);
        }
        flyway.load().migrate();
        this.writer = DriverManager.getConnection(settings.jdbcUrl());
        this.reader = DriverManager.getConnection(settings.jdbcUrl());
        if (postgres) {
            try (Statement s = writer.createStatement()) {
                s.execute("SET synchronous_commit = on"); // a commit returns once its WAL is flushed
            }
            reader.setAutoCommit(false); // so that large reads stream through a cursor (fetch size)
        } else {
            try (Statement s = writer.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("PRAGMA synchronous=FULL");
                s.execute("PRAGMA busy_timeout=10000");
            }
            try (Statement s = reader.createStatement()) {
                s.execute("PRAGMA busy_timeout=10000");
            }
        }
        writer.setAutoCommit(false);
        this.lastSeq = maxSeq(reader);
        this.writerThread = new Thread(this::writeLoop, "fairway-store-writer");
        writerThread.setDaemon(true);
        writerThread.start();
        if (settings.ackBeforeDurable()) {
            LOG.warn("the job store acknowledges writes BEFORE they are durable: a test-only setting that loses jobs on a crash");
        }
    }

    private static String currentSchema(String url) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("[?&]currentSchema=([A-Za-z_][A-Za-z0-9_]*)").matcher(url);
        return m.find() ? m.group(1) : null;
    }

    /**
     * Opens the store, creating or upgrading its schema.
     *
     * @param settings where and how
     * @return the store
     * @throws StoreException when the database cannot be opened or migrated
     */
    public static JobStore open(Settings settings) {
        try {
            return new JobStore(settings);
        } catch (SQLException | RuntimeException e) {
            throw new StoreException("cannot open the job store " + settings.jdbcUrl().replaceAll("password=[^&]*", "password=***") + ": "
                    + e.getMessage(), e);
        }
    }

    /** @return the settings it was opened with */
    public Settings settings() {
        return settings;
    }

    // ------------------------------------------------------------------ writes

    /**
     * Stores a job set's new jobs and a {@value #SUBMITTED} event for each, all or none; returns once committed.
     *
     * @param queue the queue
     * @param jobSet the job set
     * @param owner who submits
     * @param nowMillis when
     * @param jobs the jobs
     * @return the jobs as stored
     * @throws StoreException when they could not be stored (then none is)
     */
    public List<StoredJob> submit(String queue, String jobSet, String owner, long nowMillis, List<NewJob> jobs) {
        List<NewJob> copy = List.copyOf(jobs);
        String detail = "submitted by " + owner + " at priority ";
        Work<List<StoredJob>> w = c -> {
            List<StoredJob> out = new ArrayList<>(copy.size());
            java.util.Map<String, Long> shared = new java.util.HashMap<>();
            try (PreparedStatement job = c.prepareStatement(
                    "INSERT INTO jobs (id, queue, job_set, owner, priority, state, submitted_ms, template, template_id, fill) "
                            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
                 PreparedStatement ev = insertEvent(c)) {
                job.setString(2, queue);
                job.setString(3, jobSet);
                job.setString(4, owner);
                job.setString(6, QUEUED);
                job.setLong(7, nowMillis);
                for (NewJob j : copy) {
                    job.setString(1, j.id());
                    job.setInt(5, j.priority());
                    if (j.fill() == null) {
                        job.setString(8, j.template());
                        job.setNull(9, java.sql.Types.BIGINT);
                        job.setNull(10, java.sql.Types.VARCHAR);
                    } else {
                        Long tid = shared.get(j.template());
                        if (tid == null) {
                            tid = insertTemplate(c, j.template());
                            shared.put(j.template(), tid);
                        }
                        job.setString(8, "");
                        job.setLong(9, tid);
                        job.setString(10, j.fill());
                    }
                    job.addBatch();
                    addEvent(ev, queue, jobSet, j.id(), SUBMITTED, nowMillis, detail + j.priority());
                    out.add(new StoredJob(j.id(), queue, jobSet, owner, j.priority(), QUEUED, nowMillis));
                }
                job.executeBatch();
                ev.executeBatch();
            }
            return out;
        };
        if (settings.ackBeforeDurable()) {
            enqueue(w); // the broken variant: answer now, commit later
            List<StoredJob> out = new ArrayList<>();
            copy.forEach(j -> out.add(new StoredJob(j.id(), queue, jobSet, owner, j.priority(), QUEUED, nowMillis)));
            return out;
        }
        return await(enqueue(w));
    }

    /**
     * Cancels the job set's jobs that have not ended (the given ones, or all when {@code jobIds} is empty) and writes a
     * CANCELLED event for each; returns once committed.
     *
     * @param queue the queue
     * @param jobSet the job set
     * @param jobIds the jobs, or empty for the whole set
     * @param by who cancels
     * @param nowMillis when
     * @return the jobs cancelled now
     */
    public List<String> cancel(String queue, String jobSet, Collection<String> jobIds, String by, long nowMillis) {
        return updateLive(queue, jobSet, jobIds, "UPDATE jobs SET state = 'CANCELLED' WHERE id = ?", (up, id) -> up.setString(1, id),
                "CANCELLED", nowMillis, "cancelled by " + by);
    }

    /**
     * Sets the priority of the job set's jobs that have not ended (the given ones, or all when {@code jobIds} is
     * empty) and writes a REPRIORITIZED event for each; returns once committed.
     *
     * @param queue the queue
     * @param jobSet the job set
     * @param jobIds the jobs, or empty for the whole set
     * @param priority the new priority
     * @param by who changes it
     * @param nowMillis when
     * @return the jobs changed
     */
    public List<String> reprioritize(String queue, String jobSet, Collection<String> jobIds, int priority, String by, long nowMillis) {
        return updateLive(queue, jobSet, jobIds, "UPDATE jobs SET priority = ? WHERE id = ?", (up, id) -> {
            up.setInt(1, priority);
            up.setString(2, id);
        }, "REPRIORITIZED", nowMillis, "priority set to " + priority + " by " + by);
    }

    /** Binds one job's id (and what else the update sets) to an update statement. */
    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement update, String jobId) throws SQLException;
    }

    /**
     * Runs {@code sql} on each of the job set's jobs that have not ended (the given ones, or all when {@code jobIds}
     * is empty) and writes an event of {@code type} with {@code message} for each, in one transaction; returns once
     * committed.
     *
     * @return the jobs updated
     */
    private List<String> updateLive(String queue, String jobSet, Collection<String> jobIds, String sql, Binder binder, String type,
                                    long nowMillis, String message) {
        List<String> ids = List.copyOf(jobIds);
        return await(enqueue(c -> {
            List<String> live = liveIds(c, queue, jobSet, ids);
            try (PreparedStatement up = c.prepareStatement(sql); PreparedStatement ev = insertEvent(c)) {
                for (String id : live) {
                    binder.bind(up, id);
                    up.addBatch();
                    addEvent(ev, queue, jobSet, id, type, nowMillis, message);
                }
                up.executeBatch();
                ev.executeBatch();
            }
            return live;
        }));
    }

    /**
     * Records state changes the engine decided. A job that ended already keeps its end (a late change is dropped).
     * Committed with the next group; the future completes then.
     *
     * @param transitions the changes, in order
     * @return completes once they are committed
     */
    public CompletableFuture<Void> record(List<Transition> transitions) {
        return recordTagged(0, transitions, false); // term 0: not written by a leader
    }

    /** Returns once every write queued before it is committed. */
    public void sync() {
        await(enqueue(c -> null));
    }

    private static List<String> liveIds(Connection c, String queue, String jobSet, List<String> ids) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement q = c.prepareStatement("SELECT id, state FROM jobs WHERE queue = ? AND job_set = ? ORDER BY submitted_ms, id")) {
            q.setString(1, queue);
            q.setString(2, jobSet);
            Set<String> want = Set.copyOf(ids);
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    if ((want.isEmpty() || want.contains(rs.getString(1))) && !TERMINAL.contains(rs.getString(2))) {
                        out.add(rs.getString(1));
                    }
                }
            }
        }
        return out;
    }

    /** Stores a shared template; returns its number. */
    private static long insertTemplate(Connection c, String body) throws SQLException {
        try (PreparedStatement t = c.prepareStatement("INSERT INTO templates (body) VALUES (?) RETURNING id")) {
            t.setString(1, body);
            try (ResultSet rs = t.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no number for a stored template");
                }
                return rs.getLong(1);
            }
        }
    }

    private static PreparedStatement insertEvent(Connection c) throws SQLException {
        return c.prepareStatement("INSERT INTO events (queue, job_set, job_id, type, at_ms, detail) VALUES (?, ?, ?, ?, ?, ?)");
    }

    private static void addEvent(PreparedStatement ev, String queue, String jobSet, String jobId, String type, long at, String detail)
            throws SQLException {
        ev.setString(1, queue);
        ev.setString(2, jobSet);
        ev.setString(3, jobId);
        ev.setString(4, type);
        ev.setLong(5, at);
        ev.setString(6, detail == null ? "" : detail);
        ev.addBatch();
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> enqueue(Work<T> w) {
        if (closed) {
            throw new StoreException("the job store is closed", null);
        }
        CompletableFuture<Object> f = new CompletableFuture<>();
        ops.add(new Op(w, f));
        return (CompletableFuture<T>) (CompletableFuture<?>) f;
    }

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for the job store", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof StoreException s ? s : new StoreException("job store write failed: " + c.getMessage(), c);
        }
    }

    private void writeLoop() {
        List<Op> batch = new ArrayList<>();
        while (true) {
            try {
                if (settings.ackBeforeDurable()) {
                    Thread.sleep(250); // the broken variant's write-behind: a window in which acknowledged writes are not on disk
                }
                Op first = ops.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (closed) {
                        return;
                    }
                    continue;
                }
                batch.clear();
                batch.add(first);
                ops.drainTo(batch, settings.maxBatch() - 1);
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            commit(batch);
        }
    }

    private void commit(List<Op> batch) {
        long seqAtCommit;
        Object[] results = new Object[batch.size()];
        Throwable[] failures = new Throwable[batch.size()];
        try {
            for (int i = 0; i < batch.size(); i++) {
                Savepoint sp = writer.setSavepoint();
                try {
                    results[i] = batch.get(i).work().run(writer);
                    writer.releaseSavepoint(sp);
                } catch (SQLException | RuntimeException e) {
                    writer.rollback(sp);
                    failures[i] = new StoreException(describe(e), e);
                }
            }
            // the last number is read inside the transaction: a read after the commit would open a read transaction that
            // stays open until the next batch, whose first write then fails (SQLITE_BUSY_SNAPSHOT) whenever another process
            // wrote the file in between (several managers sharing one SQLite file)
            seqAtCommit = maxSeq(writer);
            writer.commit();
        } catch (SQLException e) {
            try {
                writer.rollback();
            } catch (SQLException ignored) {
                LOG.debug("rollback failed", ignored);
            }
            LOG.error("job store commit failed: {}", e.getMessage());
            batch.forEach(op -> op.done().completeExceptionally(new StoreException("job store commit failed: " + e.getMessage(), e)));
            return;
        }
        synchronized (committed) {
            lastSeq = Math.max(lastSeq, seqAtCommit);
            committed.notifyAll();
        }
        for (int i = 0; i < batch.size(); i++) {
            if (failures[i] != null) {
                batch.get(i).done().completeExceptionally(failures[i]);
            } else {
                batch.get(i).done().complete(results[i]);
            }
        }
    }

    private static String describe(Exception e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        if (m.contains("UNIQUE constraint failed: jobs.id") || m.contains("duplicate key value violates unique constraint \"jobs_pkey\"")) {
            return "a job with that id is stored already";
        }
        return m;
    }

    private static long maxSeq(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(seq), 0) FROM events")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    // ------------------------------------------------------------------ reads

    /** @return the sequence number of the last event committed */
    public long lastSeq() {
        return lastSeq;
    }

    /**
     * @param queue the queue
     * @param jobSet the job set
     * @param afterSeq the last sequence number seen (0: from the start)
     * @param limit the most events to return, 1..10,000
     * @return the job set's events after {@code afterSeq}, in order
     */
    public List<Event> events(String queue, String jobSet, long afterSeq, int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be 1..10000, was " + limit);
        }
        return read(c -> {
            List<Event> out = new ArrayList<>();
            try (PreparedStatement q = c.prepareStatement(
                    "SELECT seq, job_id, type, at_ms, detail FROM events WHERE queue = ? AND job_set = ? AND seq > ? ORDER BY seq LIMIT ?")) {
                q.setString(1, queue);
                q.setString(2, jobSet);
                q.setLong(3, afterSeq);
                q.setInt(4, limit);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Event(rs.getLong(1), queue, jobSet, rs.getString(2), rs.getString(3), rs.getLong(4), rs.getString(5)));
                    }
                }
            }
            return out;
        });
    }

    /**
     * Waits until an event after {@code afterSeq} is committed (in any job set), or the time is up.
     *
     * @param afterSeq the last sequence number seen
     * @param timeoutMillis the longest to wait
     * @return true when there is a later event
     * @throws InterruptedException when interrupted
     */
    public boolean awaitAfter(long afterSeq, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        synchronized (committed) {
            while (lastSeq <= afterSeq) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || closed) {
                    return false;
                }
                committed.wait(left);
            }
            return true;
        }
    }

    /**
     * @param id a job
     * @return the job as stored
     */
    public Optional<StoredJob> job(String id) {
        return read(c -> {
            try (PreparedStatement q = c.prepareStatement(
                    "SELECT id, queue, job_set, owner, priority, state, submitted_ms FROM jobs WHERE id = ?")) {
                q.setString(1, id);
                try (ResultSet rs = q.executeQuery()) {
                    return rs.next() ? Optional.of(row(rs)) : Optional.empty();
                }
            }
        });
    }

    /**
     * @param id a job
     * @return its template, as submitted
     */
    public Optional<String> template(String id) {
        return read(c -> {
            try (PreparedStatement q = c.prepareStatement(
                    "SELECT j.template, j.fill, t.body FROM jobs j LEFT JOIN templates t ON t.id = j.template_id WHERE j.id = ?")) {
                q.setString(1, id);
                try (ResultSet rs = q.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    String fill = rs.getString(2);
                    return Optional.of(fill == null ? rs.getString(1) : expand(rs.getString(3), fill));
                }
            }
        });
    }

    /**
     * @param queue the queue
     * @param jobSet the job set
     * @return its jobs, in submission order
     */
    public List<StoredJob> jobSet(String queue, String jobSet) {
        return read(c -> {
            List<StoredJob> out = new ArrayList<>();
            try (PreparedStatement q = c.prepareStatement("SELECT id, queue, job_set, owner, priority, state, submitted_ms FROM jobs "
                    + "WHERE queue = ? AND job_set = ? ORDER BY submitted_ms, id")) {
                q.setString(1, queue);
                q.setString(2, jobSet);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        out.add(row(rs));
                    }
                }
            }
            return out;
        });
    }

    /**
     * Hands every job that has not ended, with its template, in submission order (recovery after a restart).
     *
     * @param each gets each job and its own template
     * @return how many
     */
    public long forEachLive(java.util.function.BiConsumer<StoredJob, String> each) {
        return forEachLiveJob(l -> each.accept(l.job(), l.expanded()));
    }

    /**
     * Hands every job that has not ended, in submission order, with its template as stored: a template shared by
     * jobs is read once and handed as the same string with the same number to each of them, so a caller can decode
     * it once (recovery after a restart). Streams the rows.
     *
     * @param each gets each job
     * @return how many
     */
    public long forEachLiveJob(Consumer<LiveJob> each) {
        return read(c -> {
            long n = 0;
            java.util.Map<Long, String> bodies = new java.util.HashMap<>();
            // SQLite: rowid order is commit order, read without a sort; PostgreSQL has no such order
            String order = postgres ? "j.submitted_ms, j.id" : "j.rowid";
            try (PreparedStatement q = c.prepareStatement("SELECT j.id, j.queue, j.job_set, j.owner, j.priority, j.state, j.submitted_ms, "
                    + "j.template, j.template_id, j.fill FROM jobs j WHERE j.state NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED') ORDER BY " + order);
                 PreparedStatement t = c.prepareStatement("SELECT body FROM templates WHERE id = ?")) {
                q.setFetchSize(10_000);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        long tid = rs.getLong(9);
                        String fill = rs.getString(10);
                        if (fill == null) {
                            each.accept(new LiveJob(row(rs), 0, rs.getString(8), null));
                        } else {
                            String body = bodies.get(tid);
                            if (body == null) {
                                if (bodies.size() >= 65_536) {
                                    bodies.clear();
                                }
                                body = templateBody(t, tid);
                                bodies.put(tid, body);
                            }
                            each.accept(new LiveJob(row(rs), tid, body, fill));
                        }
                        n++;
                    }
                }
            }
            return n;
        });
    }

    private static String templateBody(PreparedStatement t, long id) throws SQLException {
        t.setLong(1, id);
        try (ResultSet rs = t.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("stored template " + id + " is missing");
            }
            return rs.getString(1);
        }
    }

    /**
     * @param each gets every job stored, ended ones included (for checks and exports)
     */
    public void forEach(Consumer<StoredJob> each) {
        read(c -> {
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id, queue, job_set, owner, priority, state, submitted_ms FROM jobs ORDER BY submitted_ms, id")) {
                while (rs.next()) {
                    each.accept(row(rs));
                }
            }
            return null;
        });
    }

    private static StoredJob row(ResultSet rs) throws SQLException {
        return new StoredJob(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5), rs.getString(6), rs.getLong(7));
    }

    private <T> T read(Work<T> w) {
        synchronized (reader) {
            if (closed) {
                throw new StoreException("the job store is closed", null);
            }
            try {
                T out = w.run(reader);
                if (postgres) {
                    reader.rollback(); // end the read's transaction: the next read sees what was committed since
                }
                return out;
            } catch (SQLException e) {
                if (postgres) {
                    try {
                        reader.rollback();
                    } catch (SQLException ignored) {
                        LOG.debug("rollback failed", ignored);
                    }
                }
                throw new StoreException("job store read failed: " + e.getMessage(), e);
            }
        }
    }

    // ------------------------------------------------------------------ leadership (several managers sharing the store)

    /**
     * A manager takes the lead: the store's leadership term goes up by one and names it. From the commit on, writes
     * of every earlier term ({@link #recordAsLeader}, {@link #confirmLeadership}) are refused, so a manager that lost
     * the lead without noticing (paused, cut off) cannot change what the new leader recovers. A write of the old
     * leader that was committing at that moment lands before the new term (PostgreSQL: the term's row lock orders
     * them; SQLite: one writer at a time).
     *
     * @param holder the manager taking the lead (for people)
     * @param nowMillis when
     * @return the new term
     */
    public long claimLeadership(String holder, long nowMillis) {
        return await(enqueue(c -> {
            try (PreparedStatement up = c.prepareStatement("UPDATE leadership SET term = term + 1, holder = ?, since_ms = ? WHERE id = 1")) {
                up.setString(1, holder == null ? "" : holder);
                up.setLong(2, nowMillis);
                if (up.executeUpdate() != 1) {
                    throw new SQLException("the leadership row is missing");
                }
            }
            return currentTerm(c)[0];
        })).longValue();
    }

    /** @return the leadership term in the store now (0: nobody ever led) */
    public long leaderTerm() {
        return read(c -> currentTerm(c)[0]);
    }

    private static long[] currentTerm(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT term FROM leadership WHERE id = 1")) {
            if (!rs.next()) {
                throw new SQLException("the leadership row is missing");
            }
            return new long[] {rs.getLong(1)};
        }
    }

    /** Inside a write: goes on only while {@code term} is the store's term, and holds it to the commit. */
    private static void requireTerm(Connection c, long term) throws SQLException {
        try (PreparedStatement q = c.prepareStatement("UPDATE leadership SET term = term WHERE id = 1 AND term = ?")) {
            q.setLong(1, term);
            if (q.executeUpdate() == 1) {
                return;
            }
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT term, holder FROM leadership WHERE id = 1")) {
            throw rs.next() ? new LeadershipLostException(term, rs.getLong(1), rs.getString(2)) : new LeadershipLostException(term, -1, "nobody");
        }
    }

    /**
     * Returns once the store confirmed that {@code term} still leads (a write that takes the term's lock, so it is
     * ordered against {@link #claimLeadership}). A leader calls it before an act outside the store that must not
     * happen twice, such as copying a job into a worker.
     *
     * @param term the leader's term
     * @throws StoreException with a {@link LeadershipLostException} cause when another manager took the lead
     */
    public void confirmLeadership(long term) {
        await(enqueue(c -> {
            requireTerm(c, term);
            return null;
        }));
    }

    /**
     * {@link #record} for a leader: the changes are written, each event carrying the term, only while {@code term}
     * still leads; otherwise none is and the future fails with a {@link LeadershipLostException} cause.
     *
     * @param term the leader's term
     * @param transitions the changes, in order
     * @return completes once they are committed
     */
    public CompletableFuture<Void> recordAsLeader(long term, List<Transition> transitions) {
        return recordTagged(term, transitions, true);
    }

    /**
     * FOR TESTS ONLY: {@link #recordAsLeader} without the check of the term (the events still carry it): what a store
     * without fencing does, for the failover test's deliberately broken twin. Never in production.
     *
     * @param term the writer's term
     * @param transitions the changes
     * @return completes once they are committed
     */
    public CompletableFuture<Void> recordAsLeaderUnfencedForTests(long term, List<Transition> transitions) {
        return recordTagged(term, transitions, false);
    }

    /**
     * Reads the number of the last event committed by any process and wakes the watchers ({@link #awaitAfter}) when it
     * moved: a process whose own writer did not write it (a standby manager) learns of another's events so.
     */
    public void refreshCommitted() {
        long m = committedSeq();
        synchronized (committed) {
            if (m > lastSeq) {
                lastSeq = m;
                committed.notifyAll();
            }
        }
    }

    private CompletableFuture<Void> recordTagged(long term, List<Transition> transitions, boolean fenced) {
        List<Transition> copy = List.copyOf(transitions);
        return enqueue(c -> {
            if (fenced) {
                requireTerm(c, term);
            }
            try (PreparedStatement up = c.prepareStatement(
                    "UPDATE jobs SET state = ? WHERE id = ? AND state NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')");
                 PreparedStatement find = c.prepareStatement("SELECT queue, job_set FROM jobs WHERE id = ?");
                 PreparedStatement ev = c.prepareStatement(
                         "INSERT INTO events (queue, job_set, job_id, type, at_ms, detail, term) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                for (Transition t : copy) {
                    up.setString(1, t.state());
                    up.setString(2, t.jobId());
                    if (up.executeUpdate() != 1) {
                        continue;
                    }
                    find.setString(1, t.jobId());
                    try (ResultSet rs = find.executeQuery()) {
                        if (rs.next()) {
                            ev.setString(1, rs.getString(1));
                            ev.setString(2, rs.getString(2));
                            ev.setString(3, t.jobId());
                            ev.setString(4, t.state());
                            ev.setLong(5, t.atMillis());
                            ev.setString(6, t.detail() == null ? "" : t.detail());
                            ev.setLong(7, term);
                            ev.addBatch();
                        }
                    }
                }
                ev.executeBatch();
            }
            return null;
        }).thenApply(x -> null);
    }

    /**
     * A change a leader must apply to its engine: a job submitted, cancelled or reprioritised (through any manager's
     * submission API).
     *
     * @param seq the event's sequence number
     * @param type {@value #SUBMITTED}, CANCELLED or REPRIORITIZED
     * @param job the job as stored now (its state and priority of now, not of the event)
     * @param template its template (for {@value #SUBMITTED}; else null)
     */
    public record Change(long seq, String type, StoredJob job, String template) {
    }

    /**
     * Changes after a sequence number.
     *
     * @param changes the changes, in order
     * @param next the sequence number to read after next time (every event up to it was read)
     */
    public record Changes(List<Change> changes, long next) {
    }

    /**
     * The submissions, cancellations and reprioritisations committed after {@code afterSeq} by any process writing
     * this store, in order. Events become visible in the order of their numbers (one writer at a time on SQLite; a
     * lock taken before numbering on PostgreSQL), so reading on from {@link Changes#next()} misses none.
     *
     * @param afterSeq the last sequence number read (0: from the start)
     * @param limit the most changes to return, 1..100,000
     * @return the changes and where to go on from
     */
    public Changes changesAfter(long afterSeq, int limit) {
        if (limit < 1 || limit > 100_000) {
            throw new IllegalArgumentException("limit must be 1..100000, was " + limit);
        }
        return read(c -> {
            long upTo = maxSeq(c); // every event up to it is committed and visible to the next statement
            List<Change> out = new ArrayList<>();
            try (PreparedStatement q = c.prepareStatement("SELECT e.seq, e.type, j.id, j.queue, j.job_set, j.owner, j.priority, j.state, "
                    + "j.submitted_ms, CASE WHEN e.type = 'SUBMITTED' THEN j.template END, j.fill, t.body FROM events e JOIN jobs j ON j.id = e.job_id "
                    + "LEFT JOIN templates t ON t.id = j.template_id AND e.type = 'SUBMITTED' WHERE e.seq > ? AND e.seq <= ? AND e.type IN ('SUBMITTED', 'CANCELLED', 'REPRIORITIZED') ORDER BY e.seq LIMIT ?")) {
                q.setLong(1, afterSeq);
                q.setLong(2, upTo);
                q.setInt(3, limit);
                q.setFetchSize(Math.min(limit, 10_000));
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Change(rs.getLong(1), rs.getString(2), new StoredJob(rs.getString(3), rs.getString(4), rs.getString(5),
                                rs.getString(6), rs.getInt(7), rs.getString(8), rs.getLong(9)), ownTemplate(rs.getString(10), rs.getString(11), rs.getString(12))));
                    }
                }
            }
            long next = out.size() == limit ? out.get(out.size() - 1).seq() : Math.max(afterSeq, upTo);
            return new Changes(out, next);
        });
    }

    /** A submission's own template from its row: the whole template, or the shared one with the job's fill put in. */
    private static String ownTemplate(String template, String fill, String sharedBody) {
        if (template == null) {
            return null;
        }
        if (fill == null) {
            return template;
        }
        if (sharedBody == null) {
            throw new IllegalStateException("a job's shared template is missing from the store");
        }
        return expand(sharedBody, fill);
    }

    /** @return the number of the last event committed by any process writing this store (read from the database) */
    public long committedSeq() {
        return read(JobStore::maxSeq);
    }

    /** Commits what is queued, stops the writer and closes the database. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            writerThread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (committed) {
            committed.notifyAll();
        }
        synchronized (reader) {
            try {
                reader.close();
                writer.close();
            } catch (SQLException e) {
                LOG.warn("closing the job store: {}", e.getMessage());
            }
        }
    }
}
