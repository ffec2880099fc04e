package io.fairway.sim;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads the command line's input files (YAML configurations, traces) as UTF-8 text with bounds, so a hostile or
 * mistaken file gives a clear error naming the file — and the line where there is one — instead of an exception
 * that loses the name ({@code Is a directory}, {@code Input length = 1}) or minutes of parsing: a directory, a
 * missing or unreadable file, bytes that are not UTF-8 (with their line and column), a file larger than the bound,
 * a line longer than the bound (a single huge YAML scalar makes the YAML parser quadratic).
 */
public final class TextFiles {
    /** The largest YAML file read: 8 MiB. */
    public static final long MAX_YAML_BYTES = 8L << 20;
    /** The longest line of a YAML file: 64 Ki characters. */
    public static final int MAX_YAML_LINE = 64 << 10;
    /** The longest line of a trace: 1 MiB. */
    public static final int MAX_TRACE_LINE = 1 << 20;

    private TextFiles() {
    }

    /**
     * @param file a file name
     * @param line its 1-based line, 0 when the whole file is meant
     * @param column the 1-based column on that line, 0 when not known
     * @return where in the file, as {@code file:line:column}, {@code file:line} or {@code file}
     */
    public static String at(String file, int line, int column) {
        return file + (line > 0 ? ":" + line + (column > 0 ? ":" + column : "") : "");
    }

    /**
     * A place in a text file, as an error names it.
     *
     * @param file the file (or resource) name
     * @param line the 1-based line, 0 when the whole file is meant
     * @param column the 1-based column on that line, 0 when not known
     */
    public record Place(String file, int line, int column) {
        /** @return {@code file:line:column}, {@code file:line} or {@code file}, as {@link TextFiles#at} writes it */
        @Override
        public String toString() {
            return at(file, line, column);
        }
    }

    /** An error about a place in a text file: the file and line it names, read from its {@link Place}. */
    public interface Located {
        /** @return where in which file the problem is */
        Place place();

        /** @return the file (or resource) name */
        default String file() {
            return place().file();
        }

        /** @return the 1-based line, 0 when the problem is the whole file (or not on one line) */
        default int line() {
            return place().line();
        }
    }

    /**
     * A file that cannot be read as bounded UTF-8 text; the message names the file, and the line (and column) where
     * there is one: {@code cluster.yaml:3:17: not UTF-8 (byte 0xC3)}.
     */
    public static final class UnreadableFileException extends UncheckedIOException implements Located {
        private static final long serialVersionUID = 1L;
        private final Place place;

        UnreadableFileException(String file, int line, int column, String message) {
            this(new Place(file, line, column), message);
        }

        private UnreadableFileException(Place place, String message) {
            super(place + ": " + message, new IOException(message));
            this.place = place;
        }

        @Override
        public Place place() {
            return place;
        }
    }

    /**
     * @param file a file
     * @param maxBytes the largest size accepted
     * @param maxLine the longest line accepted, in characters
     * @return its text
     * @throws UnreadableFileException when it is not a readable regular file, is larger than {@code maxBytes}, is not
     *     UTF-8 or has a line longer than {@code maxLine}
     */
    public static String read(Path file, long maxBytes, int maxLine) {
        String name = file.toString();
        checkRegularFile(file);
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            throw unreadable(file, e);
        }
        if (size > maxBytes) {
            throw new UnreadableFileException(name, 0, 0, "is " + size + " bytes; at most " + maxBytes + " (" + (maxBytes >> 20) + " MiB) are read");
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes((int) maxBytes + 1);
        } catch (IOException e) {
            throw unreadable(file, e);
        }
        if (bytes.length > maxBytes) { // grew while we looked
            throw new UnreadableFileException(name, 0, 0, "is more than " + maxBytes + " bytes");
        }
        String text = decode(name, bytes, 1);
        checkLines(name, text, maxLine, 1);
        return text;
    }

    /**
     * @param file a file
     * @param maxLine the longest line accepted, in bytes
     * @return a reader of its lines ({@link BufferedReader#readLine()} only) that throws {@link UnreadableFileException}
     *     naming the line for bytes that are not UTF-8 or a line longer than {@code maxLine}
     * @throws UnreadableFileException when it is not a readable regular file
     */
    public static BufferedReader openLines(Path file, int maxLine) {
        checkRegularFile(file);
        try {
            return new LineReader(file.toString(), Files.newInputStream(file), maxLine);
        } catch (IOException e) {
            throw unreadable(file, e);
        }
    }

    /**
     * @param file a file
     * @param e what reading it threw
     * @return the error, naming the file and saying what is wrong in words
     */
    public static UnreadableFileException unreadable(Path file, IOException e) {
        String why;
        if (e instanceof NoSuchFileException) {
            why = "no such file";
        } else if (e instanceof AccessDeniedException) {
            why = "permission denied";
        } else if (Files.isDirectory(file)) {
            why = "is a directory, not a file";
        } else {
            why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
        return new UnreadableFileException(file.toString(), 0, 0, why);
    }

    private static void checkRegularFile(Path file) {
        if (Files.isDirectory(file)) {
            throw new UnreadableFileException(file.toString(), 0, 0, "is a directory, not a file");
        }
        if (!Files.exists(file)) {
            throw new UnreadableFileException(file.toString(), 0, 0, "no such file");
        }
        if (!Files.isReadable(file)) {
            throw new UnreadableFileException(file.toString(), 0, 0, "permission denied");
        }
    }

    /** Decodes strictly; on a malformed byte names its line and column ({@code firstLine} is the line of bytes[0]). */
    private static String decode(String name, byte[] bytes, int firstLine) {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 16L, bytes.length + 1L));
        CoderResult r = d.decode(in, out, true);
        if (r.isError()) {
            int at = in.position();
            int line = firstLine;
            int lineStart = 0;
            for (int i = 0; i < at; i++) {
                if (bytes[i] == '\n') {
                    line++;
                    lineStart = i + 1;
                }
            }
            throw new UnreadableFileException(name, line, at - lineStart + 1, String.format("not UTF-8 (byte 0x%02X); save the file as UTF-8",
                    bytes[at] & 0xFF));
        }
        d.flush(out);
        out.flip();
        return out.toString();
    }

    private static void checkLines(String name, String text, int maxLine, int firstLine) {
        int line = firstLine;
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == '\n') {
                if (i - start > maxLine) {
                    throw new UnreadableFileException(name, line, 0, "line is " + (i - start) + " characters long; at most " + maxLine);
                }
                line++;
                start = i + 1;
            }
        }
    }

    /** Splits bytes into lines (LF or CRLF), bounded, and decodes each strictly. */
    private static final class LineReader extends BufferedReader {
        private final String name;
        private final InputStream in;
        private final int maxLine;
        private final byte[] chunk = new byte[1 << 16];
        private int pos;
        private int end;
        private byte[] buf = new byte[256];
        private int line;

        LineReader(String name, InputStream in, int maxLine) {
            super(Reader.nullReader());
            this.name = name;
            this.in = in;
            this.maxLine = maxLine;
        }

        @Override
        public String readLine() throws IOException {
            int len = 0;
            boolean any = false;
            while (true) {
                if (pos == end) {
                    end = in.read(chunk, 0, chunk.length);
                    pos = 0;
                    if (end <= 0) {
                        end = 0;
                        break;
                    }
                }
                any = true;
                int nl = -1;
                for (int i = pos; i < end; i++) {
                    if (chunk[i] == '\n') {
                        nl = i;
                        break;
                    }
                }
                int stop = nl >= 0 ? nl : end;
                int n = stop - pos;
                if (len + n > maxLine) {
                    throw new UnreadableFileException(name, line + 1, 0, "line is longer than " + maxLine + " bytes");
                }
                if (len + n > buf.length) {
                    buf = java.util.Arrays.copyOf(buf, Math.min(maxLine, Math.max(len + n, buf.length * 2)));
                }
                System.arraycopy(chunk, pos, buf, len, n);
                len += n;
                pos = nl >= 0 ? nl + 1 : end;
                if (nl >= 0) {
                    break;
                }
            }
            if (!any) {
                return null;
            }
            line++;
            if (len > 0 && buf[len - 1] == '\r') {
                len--;
            }
            return decode(name, java.util.Arrays.copyOf(buf, len), line);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
