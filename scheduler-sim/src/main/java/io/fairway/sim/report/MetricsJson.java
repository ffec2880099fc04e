package io.fairway.sim.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fairway.sim.EventRecord;
import io.fairway.sim.InfraMetrics;
import io.fairway.sim.PolicyMetrics;
import io.fairway.sim.SimulationResult;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes metrics as JSON (one object per policy, in an array) and the event log as JSON lines.
 *
 * <p>Metric keys, in this order: {@code policy, jobs, completed, avgJctSeconds, p95JctSeconds, makespanSeconds,
 * gpuUtilization, maxRho, meanRho, jainIndex, preemptions, schedulerMillisPerRound}, then {@code skipped,
 * p50JctSeconds, p99JctSeconds, avgQueueingDelaySeconds, p95QueueingDelaySeconds, lostWorkSeconds, rounds}. A
 * value that does not exist (no job completed) is {@code null}. Then placement quality: {@code multiGpuPlacements,
 * bestLocalityShare, avgFragmentation}; {@code costDollars} when nodes have prices; and, when the cluster has
 * node pools, {@code poolNodeHours, provisionedNodes, peakNodes, interruptions, gpuHoursLostToInterruptions,
 * nodeWaitJobHours, jobsWaitedForNodes} and {@code nodes}: the node count over time as
 * {@code [{"time": s, "nodes": n, "poolNodes": n, "requestedNodes": n}, ...]}.
 *
 * <p>Event lines: {@code {"time": 12.5, "job": "j1", "type": "PENDING", "reason": "QUOTA: ...", "policy": "strict-fifo",
 * "timeMillis": 12500}}, time in simulated seconds.
 */
public final class MetricsJson {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    private static final ObjectMapper LINES = new ObjectMapper().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    private MetricsJson() {
    }

    /**
     * @param m metrics
     * @return them as an ordered map with the documented keys
     */
    public static Map<String, Object> toMap(PolicyMetrics m) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("policy", m.policy());
        o.put("jobs", m.jobs());
        o.put("completed", m.completed());
        o.put("avgJctSeconds", num(m.avgJctSeconds()));
        o.put("p95JctSeconds", num(m.p95JctSeconds()));
        o.put("makespanSeconds", num(m.makespanSeconds()));
        o.put("gpuUtilization", num(m.gpuUtilization()));
        o.put("maxRho", num(m.maxRho()));
        o.put("meanRho", num(m.meanRho()));
        o.put("jainIndex", num(m.jainIndex()));
        o.put("preemptions", m.preemptions());
        o.put("schedulerMillisPerRound", num(m.schedulerMillisPerRound()));
        o.put("skipped", m.skipped());
        o.put("p50JctSeconds", num(m.p50JctSeconds()));
        o.put("p99JctSeconds", num(m.p99JctSeconds()));
        o.put("avgQueueingDelaySeconds", num(m.avgQueueingDelaySeconds()));
        o.put("p95QueueingDelaySeconds", num(m.p95QueueingDelaySeconds()));
        o.put("lostWorkSeconds", num(m.lostWorkSeconds()));
        o.put("rounds", m.rounds());
        return o;
    }

    /**
     * @param m node metrics
     * @return placement quality, cost where nodes have prices, and the node-pool metrics when there are pools
     */
    public static Map<String, Object> toMap(InfraMetrics m) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("multiGpuPlacements", m.multiGpuPlacements());
        o.put("bestLocalityShare", num(m.bestLocalityShare()));
        o.put("avgFragmentation", num(m.avgFragmentation()));
        if (m.pools() || m.costDollars() > 0) {
            o.put("costDollars", num(m.costDollars()));
        }
        if (m.pools()) {
            o.put("poolNodeHours", num(m.poolNodeHours()));
            o.put("provisionedNodes", m.provisionedNodes());
            o.put("peakNodes", m.peakNodes());
            o.put("interruptions", m.interruptions());
            o.put("gpuHoursLostToInterruptions", num(m.gpuHoursLostToInterruptions()));
            o.put("nodeWaitJobHours", num(m.nodeWaitJobHours()));
            o.put("jobsWaitedForNodes", m.jobsWaitedForNodes());
            List<Map<String, Object>> nodes = new ArrayList<>();
            for (InfraMetrics.NodeCount c : m.nodes()) {
                Map<String, Object> n = new LinkedHashMap<>();
                n.put("time", c.timeMillis() / 1000.0);
                n.put("nodes", c.nodes());
                n.put("poolNodes", c.poolNodes());
                n.put("requestedNodes", c.requestedNodes());
                nodes.add(n);
            }
            o.put("nodes", nodes);
        }
        return o;
    }

    private static Double num(double d) {
        return Double.isFinite(d) ? d : null;
    }

    /**
     * @param results one result per policy
     * @return the metrics as a JSON array
     */
    public static String metrics(List<SimulationResult> results) {
        List<Map<String, Object>> all = new ArrayList<>();
        for (SimulationResult r : results) {
            Map<String, Object> o = toMap(r.metrics());
            o.putAll(toMap(r.infra()));
            if (r.actuator().attempts() > 0) {
                io.fairway.sim.ActuatorMetrics a = r.actuator();
                Map<String, Object> m = new java.util.LinkedHashMap<>();
                m.put("attempts", a.attempts());
                m.put("failures", a.failures());
                m.put("timeouts", a.timeouts());
                m.put("retries", a.retries());
                m.put("givenUp", a.givenUp());
                m.put("backoffSeconds", a.backoffSeconds());
                m.put("maxAttemptsOfOneDecision", a.maxAttemptsOfOneDecision());
                m.put("engineMismatches", a.engineMismatches());
                o.put("actuator", m);
            }
            all.add(o);
        }
        try {
            return JSON.writeValueAsString(all) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param file where to write
     * @param results one result per policy
     */
    public static void writeMetrics(Path file, List<SimulationResult> results) {
        write(file, metrics(results));
    }

    /**
     * @param e an event
     * @return it as an ordered map with keys time, job, type, reason, policy, timeMillis
     */
    public static Map<String, Object> toMap(EventRecord e) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("time", e.timeMillis() / 1000.0);
        o.put("job", e.job());
        o.put("type", e.type());
        o.put("reason", e.reason());
        o.put("policy", e.policy());
        o.put("timeMillis", e.timeMillis());
        return o;
    }

    /**
     * Writes every event of every result, one JSON object per line, policy after policy.
     *
     * @param out where to write
     * @param results the results (recorded with events)
     * @throws IOException when writing fails
     */
    public static void writeEvents(Writer out, List<SimulationResult> results) throws IOException {
        for (SimulationResult r : results) {
            for (EventRecord e : r.events()) {
                out.write(LINES.writeValueAsString(toMap(e)));
                out.write('\n');
            }
        }
    }

    /**
     * @param file where to write
     * @param results the results (recorded with events)
     */
    public static void writeEvents(Path file, List<SimulationResult> results) {
        createParent(file);
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            writeEvents(w, results);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static void write(Path file, String text) {
        createParent(file);
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    static void createParent(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            try {
                Files.createDirectories(parent);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + parent + ": " + e.getMessage(), e);
            }
        }
    }
}
