package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.Locality;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The text of an {@code ADMITTED} event is built from parts kept across admissions (per ClusterQueue its flavors'
 * text, the last locality and factor): for any sequence of admissions — ClusterQueues interleaved, flavors changing
 * under one ClusterQueue, a policy changing a map after handing it over — each text is the one written from scratch.
 */
class AdmittedTextProperties {
    @Property(tries = 200)
    void eachTextIsTheTextWrittenFromScratch(@ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        RoundApplier.AdmittedText text = new RoundApplier.AdmittedText();
        Map<String, String> handedOver = new HashMap<>(Map.of("main", "a100"));
        for (int i = 0; i < 300; i++) {
            Map<String, String> flavors;
            if (r.nextInt(5) == 0) {
                handedOver.put(r.nextBoolean() ? "main" : "side", "f" + r.nextInt(3)); // the same map, changed
                flavors = handedOver;
            } else {
                flavors = new HashMap<>();
                flavors.put("main", "f" + r.nextInt(2));
                if (r.nextBoolean()) {
                    flavors.put("aux", "f" + r.nextInt(2));
                }
            }
            List<MemberPlacement> members = new ArrayList<>();
            int n = r.nextInt(4);
            for (int m = 0; m < n; m++) {
                members.add(new MemberPlacement("main", m, "n" + r.nextInt(r.nextBoolean() ? 1 : 3), List.of(m)));
            }
            Placement p = new Placement(members, Locality.values()[r.nextInt(Locality.values().length)], 0.5 + r.nextInt(3) * 0.25 + 1e-9 * r.nextInt(2));
            Admit a = new Admit("j" + i, "cq" + r.nextInt(3), flavors, Map.of("main", n), p, 0L);
            assertThat(text.of(a)).as("admission %d", i).isEqualTo(fromScratch(a));
        }
    }

    private static String fromScratch(Admit a) {
        return a.clusterQueue() + " " + new TreeMap<>(a.flavors()) + " on " + a.placement().nodes() + " (" + a.placement().locality() + ", x"
                + Math.round(a.placement().throughputFactor() * 100) / 100.0 + ")";
    }
}
