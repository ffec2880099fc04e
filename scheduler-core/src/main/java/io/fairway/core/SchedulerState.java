package io.fairway.core;

import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.ResourceFlavor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import io.fairway.core.snapshot.KeyOrder;
import io.fairway.core.snapshot.Provisioning;
import io.fairway.core.snapshot.PlacementStrategy;

/**
 * The engine's whole state — configuration, nodes, every job with its state, admission, lease and history,
 * usage history, node pools and requests in flight, the round counter and the clock of the last usage update —
 * captured by {@link Scheduler#exportState()} and brought back by {@link Scheduler#restore}. A scheduler
 * restored from it makes exactly the decisions the original would have made.
 *
 * <pre>{@code
 * byte[] saved = scheduler.exportState().toBytes();
 * Scheduler again = Scheduler.restore(SchedulerState.fromBytes(saved), Scheduler.builder().policy("priority").clock(clock));
 * }</pre>
 *
 * <p>{@link #fromBytes} reads untrusted bytes safely (an allow-list of the classes a state is made of, with depth
 * and size limits); {@link Scheduler#restore} then checks the state is consistent (every job's nodes, GPUs and
 * queues exist, no GPU held twice, capacity not exceeded) and refuses it otherwise.
 *
 * @param seed the seed
 * @param placement the placement strategy
 * @param usageHalfLifeMillis the usage half-life
 * @param round rounds run so far
 * @param nextSequence the next job sequence number
 * @param usageUpdatedAt when usage history was last decayed ({@code Long.MIN_VALUE}: never)
 * @param clusters clusters
 * @param flavors flavors
 * @param cohorts cohorts
 * @param clusterQueues ClusterQueues
 * @param localQueues LocalQueues
 * @param nodes nodes, in the order they were added
 * @param nodePools node pools
 * @param jobs every job, in submission order
 * @param decayedUsage usage history per ClusterQueue
 * @param provisioning quota reservations, node requests in flight, empty pool nodes
 */
public record SchedulerState(long seed, PlacementStrategy placement, long usageHalfLifeMillis, long round, long nextSequence, long usageUpdatedAt,
                             List<ClusterSpec> clusters, List<ResourceFlavor> flavors, List<Cohort> cohorts, List<ClusterQueue> clusterQueues,
                             List<LocalQueue> localQueues, List<Node> nodes, List<NodePool> nodePools, List<JobStatus> jobs,
                             Map<String, Double> decayedUsage, Provisioning provisioning) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Copies. */
    public SchedulerState {
        clusters = List.copyOf(clusters);
        flavors = List.copyOf(flavors);
        cohorts = List.copyOf(cohorts);
        clusterQueues = List.copyOf(clusterQueues);
        localQueues = List.copyOf(localQueues);
        nodes = List.copyOf(nodes);
        nodePools = List.copyOf(nodePools);
        jobs = List.copyOf(jobs);
        decayedUsage = KeyOrder.copy("decayedUsage", decayedUsage);
    }

    /** @return the state serialised with Java serialisation (every model type is serialisable) */
    public byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(this);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialise the scheduler state", e);
        }
        return bytes.toByteArray();
    }

    /** Deepest object nesting a state needs (it uses 10 today); a nested-collection bomb needs far more. */
    static final int MAX_DEPTH = 16;

    /**
     * Reads a state written by {@link #toBytes()} — by this version or an earlier one (the format is Java
     * serialisation of the model records, whose canonical constructors validate every value on the way in).
     *
     * <p>Saved state is not trusted: a filter admits only the classes a state is made of (the model records and
     * enums of {@code io.fairway.api}, this record, {@link Provisioning}, boxed numbers, strings and the JDK's
     * immutable and tree collections — no hash sets or maps, whose
     * rehashing on read is the classic denial of service) and refuses every other class <em>before</em> it is instantiated; it also
     * refuses nesting deeper than {@value #MAX_DEPTH} and any array or reference count larger than the input
     * itself, so a small payload can neither allocate a huge array nor build a deep graph whose hashing takes
     * exponential time.
     *
     * @param bytes what {@link #toBytes()} wrote
     * @return the state
     * @throws IllegalArgumentException when the bytes are not a scheduler state, naming what was refused
     */
    public static SchedulerState fromBytes(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("cannot read a scheduler state: bytes is null");
        }
        StateFilter filter = new StateFilter(bytes.length);
        try (ObjectInputStream in = new EarlierNames(new ByteArrayInputStream(bytes))) {
            in.setObjectInputFilter(filter);
            Object o = in.readObject();
            if (!(o instanceof SchedulerState s)) {
                throw new IllegalArgumentException("not a scheduler state: " + (o == null ? "null" : o.getClass().getName()));
            }
            if (in.read() != -1) {
                throw new IllegalArgumentException("cannot read a scheduler state: trailing bytes after the state");
            }
            return s;
        } catch (java.io.InvalidClassException e) {
            throw new IllegalArgumentException("cannot read a scheduler state: " + (filter.refused != null ? filter.refused : e.getMessage()), e);
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            if (e instanceof IllegalArgumentException iae && iae.getMessage() != null && iae.getMessage().startsWith("not a scheduler state")) {
                throw iae;
            }
            throw new IllegalArgumentException("cannot read a scheduler state: " + e, e);
        }
    }

    /**
     * Reads a state written before a round's input had a package of its own: the classes that moved from
     * {@code io.fairway.core} to {@code io.fairway.core.snapshot} are read under their new names (the allow-list then
     * judges the class they resolve to).
     */
    private static final class EarlierNames extends ObjectInputStream {
        private static final java.util.Map<String, Class<?>> MOVED = java.util.Map.of(
                "io.fairway.core.PlacementStrategy", PlacementStrategy.class,
                "io.fairway.core.Provisioning", Provisioning.class,
                "io.fairway.core.Provisioning$Reservation", Provisioning.Reservation.class,
                "io.fairway.core.Provisioning$Request", Provisioning.Request.class);

        EarlierNames(java.io.InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            Class<?> moved = MOVED.get(desc.getName());
            return moved != null ? moved : super.resolveClass(desc);
        }
    }

    /** The allow-list and limits of {@link #fromBytes}. */
    private static final class StateFilter implements java.io.ObjectInputFilter {
        private static final java.util.Set<String> JDK = java.util.Set.of(
                "java.lang.Boolean", "java.lang.Integer", "java.lang.Long", "java.lang.Double", "java.lang.Number", "java.lang.Enum",
                "java.lang.String", "java.util.CollSer", "java.util.TreeMap", "java.util.TreeSet", "java.util.ArrayList");
        private static final java.util.Set<String> CORE = java.util.Set.of(
                "io.fairway.core.SchedulerState", "io.fairway.core.snapshot.PlacementStrategy", "io.fairway.core.snapshot.Provisioning",
                "io.fairway.core.snapshot.Provisioning$Reservation", "io.fairway.core.snapshot.Provisioning$Request");
        private final long maxCount;
        private String refused;

        StateFilter(long inputLength) {
            this.maxCount = Math.max(1024, inputLength);
        }

        @Override
        public Status checkInput(FilterInfo info) {
            if (info.depth() > MAX_DEPTH) {
                return refuse("objects nested " + info.depth() + " deep (at most " + MAX_DEPTH + ")");
            }
            if (info.references() > maxCount) {
                return refuse(info.references() + " references in " + maxCount + " bytes");
            }
            if (info.arrayLength() > maxCount) {
                return refuse("an array of " + info.arrayLength() + " elements in " + maxCount + " bytes");
            }
            Class<?> c = info.serialClass();
            if (c == null) {
                return Status.UNDECIDED;
            }
            while (c.isArray()) {
                c = c.getComponentType();
            }
            if (c.isPrimitive() || allowed(c.getName())) {
                return Status.ALLOWED;
            }
            return refuse("class " + info.serialClass().getName() + " is not part of a scheduler state");
        }

        private static boolean allowed(String name) {
            if (JDK.contains(name) || CORE.contains(name) || name.equals("java.lang.Object")) {
                return true;
            }
            if (name.startsWith("java.util.ImmutableCollections$") || name.startsWith("java.util.Collections$Unmodifiable")
                    || name.startsWith("java.util.Collections$Empty")) {
                return true;
            }
            // the model: records and enums of the API (their constructors validate), nothing else of the API
            return name.startsWith("io.fairway.api.model.") || name.startsWith("io.fairway.api.job.")
                    || name.startsWith("io.fairway.api.decision.");
        }

        private Status refuse(String why) {
            if (refused == null) {
                refused = why;
            }
            return Status.REJECTED;
        }
    }
}
