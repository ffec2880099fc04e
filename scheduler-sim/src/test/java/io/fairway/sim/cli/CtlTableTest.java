package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code fairway ctl}'s text tables: columns as wide as their widest cell, two spaces apart, nothing wrapped or trailing. */
class CtlTableTest {
    @Test
    void columnsAlignAndALongLastCellStaysOnOneLine() {
        StringWriter s = new StringWriter();
        String reason = "QUOTA needs 16 nvidia.com/gpu of flavor h100; the ClusterQueue team-a has 4 left and its cohort lends none of it";
        CtlCommand.table(new PrintWriter(s), List.of(
                new String[] {"QUEUE", "POS", "JOB", "REASON"},
                new String[] {"team-a", "1", "train-7", reason},
                new String[] {"team-b-long-name", "12", "x", "-"}));
        List<String> lines = s.toString().lines().toList();
        assertThat(lines).containsExactly(
                "QUEUE             POS  JOB      REASON",
                "team-a            1    train-7  " + reason,
                "team-b-long-name  12   x        -");
    }
}
