package io.fairway.sim.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits one CSV line: commas, optional double quotes (a doubled quote inside quotes is a quote). Kept by hand rather
 * than Jackson's CSV module (which writes the simulator's CSV files): the trace readers read line by line to name the
 * line of every bad cell and of an unterminated quote, and trim cells, in 40 lines.
 */
final class Csv {
    private Csv() {
    }

    /**
     * @param line a CSV line
     * @return true when a quoted field is not closed before the end of the line
     */
    static boolean unterminatedQuote(String line) {
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            if (line.charAt(i) == '"') {
                if (quoted && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    i++;
                } else {
                    quoted = !quoted;
                }
            }
        }
        return quoted;
    }

    static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < line.length() && line.charAt(i + 1) == '"') {
                        cur.append('"');
                        i++;
                    } else {
                        quoted = false;
                    }
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                out.add(cur.toString().trim());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString().trim());
        return out;
    }
}
