package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.GpuTopology;
import io.fairway.core.Policies;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Themis' decisions on seeded workloads, recorded as a digest of every decision of the run: a change meant to make
 * the round faster (caching, incremental work) must leave them as they are. A change meant to alter decisions
 * re-records the digests and says why in its commit.
 */
class ThemisDecisionsTest {
    private static String digest(String params, long seed, double checkpointSeconds) throws NoSuchAlgorithmException {
        Map<String, String> p = new java.util.HashMap<>();
        for (String kv : params.split(";")) {
            if (!kv.isBlank()) {
                p.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
        }
        MiniSim sim = new MiniSim(Policies.create("themis", p), 2, 4, GpuTopology.pcie4("V100"), seed);
        MiniSim.randomWorkload(sim, seed, 40, 6, 3_600_000, checkpointSeconds);
        sim.run(200L * 3600 * 1000);
        assertThat(sim.violations).isEmpty();
        assertThat(sim.finished).hasSize(sim.specs.size());
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (String line : sim.log) {
            md.update(line.getBytes(StandardCharsets.UTF_8));
            md.update((byte) '\n');
        }
        return sim.log.size() + " " + HexFormat.of().formatHex(md.digest()).substring(0, 16);
    }

    @ParameterizedTest(name = "{0}, seed {1}, checkpoints every {2} s")
    @CsvSource({
        // the defaults, re-recorded when leases went from 10 to 15 minutes and the overdue bound from 2 to 1.5 times the
        // work ahead (chosen together on the tuning seeds: shorter first-start waits, fewer revocations)
        "'', 11, 0, 254 8d4082b7368f0dac",
        "'', 12, 120, 509 3a137582dd4da224",
        // the defaults before that (overdueReserve, the overdue bound 2): the decisions recorded before, unchanged
        "leaseMinutes=10;overdueFactor=2, 11, 0, 436 5cf489c9c08f811d",
        "leaseMinutes=10;overdueFactor=2, 12, 120, 531 25331e7ba2e545d2",
        // the defaults before that (worstJobFirst, the guard from rho 2): the decisions recorded before, unchanged
        "leaseMinutes=10;overdueFactor=4;overdueReserve=false, 11, 0, 326 2165764d909318f1",
        "leaseMinutes=10;overdueFactor=4;overdueReserve=false, 12, 120, 315 f14a3489cbb0f336",
        // the defaults before that: the decisions recorded before, unchanged
        "leaseMinutes=10;worstJobFirst=false;reserveAboveRho=3;overdueFactor=4;overdueReserve=false, 11, 0, 300 147861aa15f02e75",
        "leaseMinutes=10;worstJobFirst=false;reserveAboveRho=3;overdueFactor=4;overdueReserve=false, 12, 120, 299 31742b1d24043c3a",
        "leaseMinutes=10;perJob=false;overdueFactor=infinite;worstJobFirst=false;reserveAboveRho=3, 11, 120, 254 1c6a62554be19336",
    })
    void theDecisionsAreTheRecordedOnes(String params, long seed, double checkpointSeconds, String recorded) throws NoSuchAlgorithmException {
        assertThat(digest(params, seed, checkpointSeconds)).isEqualTo(recorded);
    }
}
