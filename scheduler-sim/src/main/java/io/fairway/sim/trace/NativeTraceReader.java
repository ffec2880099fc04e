package io.fairway.sim.trace;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Quantities;
import io.fairway.api.model.Resources;
import io.fairway.sim.SimJob;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Fairway's native CSV trace. Columns (by header name, any order; only the first three are required):
 *
 * <pre>
 * id, submit_seconds, duration_seconds,
 * members, gpus_per_member, cpu_per_member, memory_per_member,  (or gpus: a total shaped by GangShape)
 * queue, namespace, priority, job_set, owner, model, min_members,
 * checkpoint_interval_seconds, checkpoint_cost_seconds, restore_seconds,
 * topology                                                      (see {@link TopologyText}: required:LEVEL, preferred:LEVEL, ...)
 * </pre>
 *
 * <p>{@code cpu_per_member} and {@code memory_per_member} are Kubernetes quantities ({@code 4}, {@code 500m},
 * {@code 16Gi}); {@code queue} defaults to {@code default}, {@code namespace} to {@code default},
 * {@code members} to 1. A job must ask for some resource.
 */
public final class NativeTraceReader extends CsvTraceReader {
    /** Creates the reader. */
    public NativeTraceReader() {
    }

    @Override
    public TraceFormat format() {
        return TraceFormat.NATIVE;
    }

    @Override
    List<String> requiredColumns() {
        return List.of("id", "submit_seconds", "duration_seconds");
    }

    @Override
    SimJob job(CsvRow row) {
        String id = row.text("id");
        double duration = positive(row, "duration_seconds");
        int members;
        long gpusPerMember;
        if (row.has("gpus") && !row.has("members") && !row.has("gpus_per_member")) {
            long g = row.whole("gpus");
            if (g < 0) {
                throw row.error("gpus must be >= 0, was " + g);
            }
            GangShape s = g == 0 ? new GangShape(1, 0) : GangShape.forGpus(g);
            members = s.members();
            gpusPerMember = s.gpusPerMember();
        } else {
            if (row.has("gpus")) {
                throw row.error("give either gpus or members/gpus_per_member, not both");
            }
            long m = row.whole("members", 1);
            if (m < 1 || m > 100_000) {
                throw row.error("members must be in 1..100000, was " + m);
            }
            members = (int) m;
            gpusPerMember = row.whole("gpus_per_member", 0);
            if (gpusPerMember < 0) {
                throw row.error("gpus_per_member must be >= 0, was " + gpusPerMember);
            }
        }
        Map<String, Long> perMember = new LinkedHashMap<>();
        if (gpusPerMember > 0) {
            perMember.put(Resources.GPU, gpusPerMember);
        }
        if (row.has("cpu_per_member")) {
            perMember.put(Resources.CPU, Quantities.parse(Resources.CPU, row.text("cpu_per_member")));
        }
        if (row.has("memory_per_member")) {
            perMember.put(Resources.MEMORY, Quantities.parse(Resources.MEMORY, row.text("memory_per_member")));
        }
        perMember.values().removeIf(v -> v == 0);
        if (perMember.isEmpty()) {
            throw row.error("job " + id + " asks for no resource; give gpus_per_member, gpus, cpu_per_member or memory_per_member");
        }
        PodSet podSet = PodSet.of("main", members, Resources.of(perMember));
        if (row.has("min_members")) {
            long min = row.whole("min_members");
            if (min < 1 || min > members) {
                throw row.error("min_members must be in 1.." + members + ", was " + min);
            }
            podSet = podSet.withMinCount((int) min);
        }
        if (row.has("topology")) {
            try {
                podSet = podSet.withTopology(TopologyText.parse(row.text("topology")));
            } catch (InvalidSpecException e) {
                throw row.error(e.getMessage(), e);
            }
        }
        long priority = row.whole("priority", 0);
        if (priority < Integer.MIN_VALUE || priority > Integer.MAX_VALUE) {
            throw row.error("priority " + priority + " is out of range");
        }
        JobSpec.Builder b = JobSpec.builder(id)
                .namespace(row.text("namespace", JobSpec.DEFAULT_NAMESPACE))
                .queue(row.text("queue", "default"))
                .jobSet(row.text("job_set", null))
                .owner(row.text("owner", ""))
                .priority((int) priority)
                .submitTimeMillis(millis(row, "submit_seconds", row.number("submit_seconds")))
                .podSet(podSet)
                .estimatedSeconds(duration)
                .sensitivity(PlacementSensitivity.forModel(row.text("model", null)));
        if (row.has("checkpoint_interval_seconds")) {
            try {
                b.checkpointing(new Checkpointing(row.number("checkpoint_interval_seconds"), row.number("checkpoint_cost_seconds", 0),
                        row.number("restore_seconds", 0)));
            } catch (InvalidSpecException e) {
                throw row.error(e.getMessage(), e);
            }
        }
        return new SimJob(b.build(), duration);
    }
}
