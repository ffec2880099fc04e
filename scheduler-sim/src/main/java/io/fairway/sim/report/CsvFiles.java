package io.fairway.sim.report;

import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes CSV files through Jackson's CSV module: a header line, then one line per row, each cell quoted (and its quotes
 * doubled) only when it holds a comma, a quote or a line break, as RFC 4180 has it.
 */
public final class CsvFiles {
    private static final CsvMapper MAPPER = new CsvMapper();

    private CsvFiles() {
    }

    /**
     * @param header the column names
     * @param rows the rows, each with one cell per column
     * @return the CSV text
     */
    public static String text(List<String> header, List<List<String>> rows) {
        CsvSchema.Builder b = CsvSchema.builder();
        header.forEach(b::addColumn);
        for (List<String> r : rows) {
            if (r.size() != header.size()) {
                throw new IllegalArgumentException("a CSV row has " + r.size() + " cells for " + header.size() + " columns: " + r);
            }
        }
        try {
            return MAPPER.writer(b.build().withHeader().withLineSeparator("\n")).writeValueAsString(rows);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write CSV: " + e.getMessage(), e);
        }
    }

    /**
     * @param file the file to write (its directory is created)
     * @param header the column names
     * @param rows the rows, each with one cell per column
     */
    public static void write(Path file, List<String> header, List<List<String>> rows) {
        String csv = text(header, rows);
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Files.writeString(file, csv, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
