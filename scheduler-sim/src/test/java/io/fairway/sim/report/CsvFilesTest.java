package io.fairway.sim.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The CSV the simulator writes (Themis study results, generated traces) reads back cell for cell, whatever a cell holds. */
class CsvFilesTest {
    @Test
    void aLabelWithACommaAndAQuoteReadsBackWhole() throws Exception {
        String label = "f=0.8, leases \"20 min\"";
        String csv = CsvFiles.text(List.of("label", "policy", "max_rho_app"), List.of(List.of(label, "themis", "1.2500")));
        assertThat(csv).startsWith("label,policy,max_rho_app\n");
        try (MappingIterator<List<String>> it = new CsvMapper().enable(CsvParser.Feature.WRAP_AS_ARRAY).readerForListOf(String.class).readValues(csv)) {
            List<List<String>> rows = it.readAll();
            assertThat(rows).containsExactly(List.of("label", "policy", "max_rho_app"), List.of(label, "themis", "1.2500"));
        }
    }

    @Test
    void aRowWithTheWrongNumberOfCellsIsRefused() {
        assertThatThrownBy(() -> CsvFiles.text(List.of("a", "b"), List.of(List.of("1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 cells for 2 columns");
    }
}
