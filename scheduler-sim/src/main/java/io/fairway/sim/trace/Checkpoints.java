package io.fairway.sim.trace;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationInput;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gives checkpointing to the jobs of a workload that carry none: most traces (Philly, Tiresias) say nothing about
 * checkpoints, and how much a preemption costs depends on it. Jobs that already checkpoint keep theirs.
 *
 * <pre>{@code
 * Duration every = Checkpoints.parseDuration("10m");                       // also 600s, 600, 1h, 1h30m
 * List<SimJob> jobs = Checkpoints.whereMissing(trace.jobs(), Checkpoints.every(every));
 * SimulationInput in = Checkpoints.whereMissing(input, Checkpoints.every(every));
 * }</pre>
 */
public final class Checkpoints {
    /**
     * Seconds a job takes to restore from its checkpoint when it starts again, for checkpointing given by
     * {@link #every(Duration)}: the value the Themis-like workload uses ({@link ThemisWorkloadGenerator#RESTORE_SECONDS}).
     */
    public static final double DEFAULT_RESTORE_SECONDS = ThemisWorkloadGenerator.RESTORE_SECONDS;

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)?");

    private Checkpoints() {
    }

    /**
     * @param interval progress between checkpoints, &gt; 0
     * @return checkpointing every {@code interval}, free checkpoints, {@link #DEFAULT_RESTORE_SECONDS} to restore
     * @throws InvalidSpecException when the interval is null, zero or negative
     */
    public static Checkpointing every(Duration interval) {
        InvalidSpecException.check(interval != null && !interval.isNegative() && !interval.isZero(), "checkpointInterval", interval,
                "checkpoint interval must be > 0, was %s", interval);
        return new Checkpointing(interval.toNanos() / 1e9, 0, DEFAULT_RESTORE_SECONDS);
    }

    /**
     * @param jobs a workload
     * @param checkpointing what to give the jobs without any
     * @return the jobs, in the same order; those without checkpointing now have {@code checkpointing}
     */
    public static List<SimJob> whereMissing(List<SimJob> jobs, Checkpointing checkpointing) {
        InvalidSpecException.check(checkpointing != null, "checkpointing", null, "checkpointing is required");
        List<SimJob> out = new ArrayList<>(jobs.size());
        for (SimJob j : jobs) {
            JobSpec s = j.spec();
            out.add(s.checkpointing() != null ? j : new SimJob(new JobSpec(s.id(), s.namespace(), s.queue(), s.jobSet(), s.owner(),
                    s.priority(), s.submitTimeMillis(), s.podSets(), s.estimatedSeconds(), s.sensitivity(), checkpointing), j.durationSeconds()));
        }
        return out;
    }

    /**
     * @param input a simulation input
     * @param checkpointing what to give its jobs without any
     * @return the input with those jobs changed (cluster, queues and actions as they were)
     */
    public static SimulationInput whereMissing(SimulationInput input, Checkpointing checkpointing) {
        return new SimulationInput(input.name(), input.cluster(), input.queues(), whereMissing(input.jobs(), checkpointing), input.actions());
    }

    /**
     * @param text a duration: a number with a unit ({@code ms}, {@code s}, {@code m}, {@code h}, {@code d}; no unit:
     *     seconds), or several ({@code 1h30m}); also ISO-8601 ({@code PT10M})
     * @return it
     * @throws InvalidSpecException naming the text when it is not a duration
     */
    public static Duration parseDuration(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("p")) {
            try {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            } catch (java.time.format.DateTimeParseException e) {
                throw badDuration(text);
            }
        }
        Matcher m = PART.matcher(t);
        int at = 0;
        double nanos = 0;
        while (at < t.length()) {
            if (!m.find(at) || m.start() != at) {
                throw badDuration(text);
            }
            double v = Double.parseDouble(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            if (m.group(2) == null && (at > 0 || m.end() < t.length())) {
                throw badDuration(text); // a number without a unit only alone
            }
            nanos += v * switch (unit) {
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                case "h" -> 3600e9;
                default -> 86_400e9;
            };
            at = m.end();
        }
        if (at == 0) {
            throw badDuration(text);
        }
        return Duration.ofNanos(Math.round(nanos));
    }

    private static InvalidSpecException badDuration(String text) {
        return new InvalidSpecException("duration", text, "\"" + text + "\" is not a duration; write e.g. 600s, 10m, 1h, 1h30m");
    }
}
