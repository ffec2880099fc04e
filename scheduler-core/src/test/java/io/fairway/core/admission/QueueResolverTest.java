package io.fairway.core.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import io.fairway.core.snapshot.Snapshot;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * A resolver that answers a job from the names of the job it resolved last (when the namespace and queue are the
 * very same objects) answers as a resolver made afresh for that job: on random sequences of jobs in namespaces and
 * LocalQueues that exist, do not exist, or lead to a stopped ClusterQueue, with names shared between specs and equal
 * names in distinct objects.
 */
class QueueResolverTest {
    private static final String[] NAMESPACES = {"team-a", "team-b", "nowhere"};
    private static final String[] QUEUES = {"lq", "lq-stopped", "missing"};

    @Property(tries = 200)
    void answersAsAResolverMadeAfresh(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        Snapshot s = snapshot();
        QueueResolver kept = new QueueResolver(s);
        Random rnd = new Random(seed);
        for (int i = 0; i < 60; i++) {
            String ns = NAMESPACES[rnd.nextInt(NAMESPACES.length)];
            String q = QUEUES[rnd.nextInt(QUEUES.length)];
            if (rnd.nextBoolean()) { // equal names in objects of their own
                ns = new String(ns.toCharArray());
                q = new String(q.toCharArray());
            }
            JobSpec spec = JobSpec.builder("job-" + i).namespace(ns).queue(q)
                    .podSet(PodSet.of("main", 1, Resources.builder().cpu(0.1).build())).build();
            JobStatus j = JobStatus.submitted(spec, null, 0, i);
            assertThat(kept.resolve(j)).as("%s/%s", ns, q).isEqualTo(new QueueResolver(s).resolve(j));
        }
    }

    private static Snapshot snapshot() {
        Resources quota = Resources.builder().cpu(1).build();
        return Scheduler.builder().flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", quota).build())
                .clusterQueue(ClusterQueue.builder("cq-stopped").quota("default", quota).stopped(true).build())
                .localQueue(new LocalQueue("team-a", "lq", "cq")).localQueue(new LocalQueue("team-b", "lq", "cq"))
                .localQueue(new LocalQueue("team-a", "lq-stopped", "cq-stopped")).localQueue(new LocalQueue("team-b", "lq-stopped", "cq-stopped"))
                .build().snapshot();
    }
}
