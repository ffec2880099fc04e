package io.fairway.k8s;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Job's admission as the annotation {@value Keys#ADMISSION_ANNOTATION} holds it: the ClusterQueue charged, the
 * flavor and member count of each pod set, and where each member runs. It is what a restarted adapter rebuilds
 * admitted jobs from, so a job is never admitted twice.
 *
 * <pre>
 * {"clusterQueue":"team-a","flavors":{"main":"default"},"counts":{"main":2},
 *  "members":[{"podSet":"main","index":0,"node":"n1","gpus":[0,1]},{"podSet":"main","index":1,"node":"n2","gpus":[]}]}
 * </pre>
 *
 * @param clusterQueue the ClusterQueue charged
 * @param flavors the flavor of each pod set
 * @param counts the member count of each pod set
 * @param members where each member runs
 */
public record AdmissionRecord(String clusterQueue, Map<String, String> flavors, Map<String, Integer> counts, List<Member> members) {
    /** Copies. */
    public AdmissionRecord {
        flavors = flavors == null ? Map.of() : Map.copyOf(flavors);
        counts = counts == null ? Map.of() : Map.copyOf(counts);
        members = members == null ? List.of() : List.copyOf(members);
    }

    /**
     * One member's place.
     *
     * @param podSet the pod set
     * @param index the member's index in it
     * @param node the node
     * @param gpus the node's GPU indexes
     */
    public record Member(String podSet, int index, String node, List<Integer> gpus) {
        /** Copies. */
        public Member {
            gpus = gpus == null ? List.of() : List.copyOf(gpus);
        }
    }

    /**
     * @param admit an admission decision
     * @return its record
     */
    public static AdmissionRecord of(Admit admit) {
        return of(admit.clusterQueue(), admit.flavors(), admit.counts(), admit.placement());
    }

    /**
     * @param clusterQueue the ClusterQueue
     * @param flavors flavors by pod set
     * @param counts counts by pod set
     * @param placement the placement
     * @return the record
     */
    public static AdmissionRecord of(String clusterQueue, Map<String, String> flavors, Map<String, Integer> counts, Placement placement) {
        List<Member> ms = new ArrayList<>();
        for (MemberPlacement m : placement.members()) {
            ms.add(new Member(m.podSet(), m.index(), m.node(), m.gpus()));
        }
        return new AdmissionRecord(clusterQueue, flavors, counts, ms);
    }

    /** @return the placement (its quality is recomputed by the engine when the admission is restored) */
    public Placement placement() {
        List<MemberPlacement> ms = new ArrayList<>();
        for (Member m : members) {
            ms.add(new MemberPlacement(m.podSet(), m.index(), m.node(), m.gpus()));
        }
        return new Placement(ms, null, 1.0);
    }

    /** @return the JSON for the annotation */
    public String toJson() {
        return Json.write(this);
    }

    /**
     * @param json the annotation's value
     * @return the record
     * @throws IllegalArgumentException when it cannot be read
     */
    public static AdmissionRecord parse(String json) {
        AdmissionRecord r = Json.read(json, AdmissionRecord.class);
        if (r == null || r.members().isEmpty()) {
            throw new IllegalArgumentException("admission annotation without members: " + json);
        }
        return r;
    }
}
