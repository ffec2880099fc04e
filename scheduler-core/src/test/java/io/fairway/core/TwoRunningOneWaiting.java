package io.fairway.core;

import io.fairway.api.job.JobSpec;
import io.fairway.api.model.Resources;

/** The jobs of the engine's hardening and restore tests: one-member jobs in LocalQueue {@code ns/q}. */
final class TwoRunningOneWaiting {
    private TwoRunningOneWaiting() {
    }

    /** A one-member job of {@code gpus} GPUs and one CPU in LocalQueue {@code ns/q}. */
    static JobSpec job(String id, int gpus) {
        return JobSpec.builder(id).namespace("ns").queue("q").members(1, Resources.builder().cpu(1).gpus(gpus).build()).build();
    }

    /** On two 8-GPU nodes: submits a, b and p (8 GPUs each), runs a round and reports a and b started; p waits. */
    static void start(Scheduler s) {
        s.submit(job("a", 8));
        s.submit(job("b", 8));
        s.submit(job("p", 8));
        s.runRound();
        s.reportStarted("a");
        s.reportStarted("b");
    }
}
