package com.example.fairway;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobState;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The embedded scheduler finds this project's policy by name and admits the gang whole on one node. */
class EmbeddingTest {

    @Test
    void thePolicyIsFoundByNameThroughItsServiceEntry() {
        assertThat(Policies.available()).containsKey("queue-round-robin");
        assertThat(Policies.create("queue-round-robin", java.util.Map.of())).isInstanceOf(QueueRoundRobinPolicy.class);
    }

    @Test
    void theEmbeddedSchedulerAdmitsTheGangWhole() {
        List<Decision> actuated = new ArrayList<>();
        Scheduler scheduler = Embedding.scheduler(actuated::addAll);

        RoundResult round = scheduler.runRound();
        scheduler.reportStarted("train-1");

        assertThat(round.decisions()).singleElement().isInstanceOf(Admit.class);
        assertThat(actuated).isEqualTo(round.decisions());
        Admit admit = (Admit) round.decisions().get(0);
        assertThat(admit.placement().members()).extracting(m -> m.node() + m.gpus())
                .containsExactly("node-1[0, 1, 2, 3]", "node-1[4, 5, 6, 7]");
        assertThat(scheduler.status("train-1").orElseThrow().state()).isEqualTo(JobState.RUNNING);
    }
}
